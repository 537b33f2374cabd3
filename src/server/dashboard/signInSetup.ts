/**
 * The dashboard's sign-in options made real at start: the OpenID Connect client secret and the second
 * factor's key read from their files (`readSignInSecrets`, before anything listens: a file that cannot be
 * read is a usage error naming it, never quoting it), then the relying party and the second factor's store
 * handed to the dashboard (`dashboardSignIn`).
 */
import { UsageError } from '../../shared/args';
import type { ServerLogger } from '../log';
import type { SecondFactorStore } from '../storage/secondFactor';
import { type SsoCliOptions, readClientSecret } from '../ssoOptions';
import { type DashboardSso, OidcRelyingParty, SSO_CALLBACK_PATH } from './oidcClient';
import { type DashboardSecondFactor, SecretBox } from './totp';

export interface SignInSecrets {
  clientSecret?: string;
  box: SecretBox;
}

export function readSignInSecrets(o: SsoCliOptions): SignInSecrets {
  let box: SecretBox;
  try {
    box = o.mfaKeyFile ? SecretBox.fromFile(o.mfaKeyFile) : new SecretBox(undefined);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new UsageError(code ? `--mfa-key-file ${o.mfaKeyFile} cannot be read (${code})` : (e as Error).message);
  }
  return { box, ...(o.oidc ? { clientSecret: readClientSecret(o.oidc.clientSecretFile) } : {}) };
}

export interface DashboardSignIn {
  sso?: DashboardSso;
  secondFactor?: DashboardSecondFactor;
}

export function dashboardSignIn(
  o: SsoCliOptions,
  secrets: SignInSecrets,
  log: ServerLogger,
  backends: { secondFactor?: SecondFactorStore; keys: { teams: { defaultOrgId: string } } },
): DashboardSignIn {
  const out: DashboardSignIn = {};
  if (backends.secondFactor) out.secondFactor = { store: backends.secondFactor, box: secrets.box };
  if (o.oidc && o.publicUrl && secrets.clientSecret !== undefined) {
    const rp = new OidcRelyingParty(
      {
        issuer: o.oidc.issuer,
        clientId: o.oidc.clientId,
        clientSecret: secrets.clientSecret,
        redirectUri: `${o.publicUrl}${SSO_CALLBACK_PATH}`,
        scopes: o.oidc.scopes,
        groupsClaim: o.oidc.groupsClaim,
        trustEmail: o.oidc.trustEmail,
      },
      log,
    );
    out.sso = {
      rp,
      publicUrl: o.publicUrl,
      orgId: o.oidc.orgId ?? backends.keys.teams.defaultOrgId,
      roleMap: o.oidc.roleMap,
      label: o.oidc.label,
    };
    log.info('dashboard single sign-on', {
      issuer: o.oidc.issuer,
      redirect_uri: `${o.publicUrl}${SSO_CALLBACK_PATH}`,
      groups: o.oidc.roleMap.size,
    });
  }
  return out;
}
