/**
 * What the dashboard's second factor works with (its store, and what seals the TOTP secrets: the key of
 * `--mfa-key-file`, or none), and a stored secret opened for a request, or a page saying that it cannot be
 * (the key missing, or another one): never what the secret is.
 */
import type { SecondFactorStore } from '../storage/secondFactor';
import type { DashReq } from './context';
import { DashError } from './respond';
import type { SecretBox } from './totp';

export interface DashboardSecondFactor {
  store: SecondFactorStore;
  box: SecretBox;
}

export function openSecret(r: DashReq, sealed: string): string {
  try {
    return r.ctx.secondFactor.box.open(sealed);
  } catch (e) {
    r.ctx.api.log.error('a second-factor secret cannot be opened', { error: e instanceof Error ? e.message : String(e) });
    throw new DashError(500, r.l10n.t('The second factor cannot be checked: the key of this service for it is missing or wrong. Tell your administrator.'));
  }
}
