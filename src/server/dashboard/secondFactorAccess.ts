/**
 * What the dashboard's second factor works with (its store, and what seals the TOTP secrets: the key of
 * `--mfa-key-file`, or none), and a stored secret opened for a request, or a page saying that it cannot be
 * (the key missing, or another one): never what the secret is.
 */
import type { DashReq } from './context';
import { DashError } from './respond';
import type { DashboardSecondFactor } from './totp';

/** The second factor of the dashboard, or a 404 page where the store does not keep it. */
export function mfaOf(r: DashReq): DashboardSecondFactor {
  const mfa = r.ctx.secondFactor;
  if (!mfa) throw new DashError(404, r.l10n.t('No such page.'));
  return mfa;
}

export function openSecret(r: DashReq, sealed: string): string {
  try {
    return mfaOf(r).box.open(sealed);
  } catch (e) {
    r.ctx.api.log.error('a second-factor secret cannot be opened', { error: e instanceof Error ? e.message : String(e) });
    throw new DashError(
      500,
      r.l10n.t('The second factor cannot be checked: the key of this service for it is missing or wrong. Tell your administrator.'),
    );
  }
}
