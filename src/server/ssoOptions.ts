/**
 * The dashboard's single sign-on options (OpenID Connect, docs/dashboard-sign-in.md "Single sign-on"): the public
 * URL the redirect URI is derived from, the provider's issuer, the client's id and the file holding its
 * secret (never the secret itself on the command line), the scopes, the claim that carries the groups and
 * the map from groups to roles (`--oidc-role-map` inline, or `--oidc-role-map-file` JSON for group names
 * with commas or "="), each checked with a message a person can act on. The secret file is read at start
 * (`readClientSecret`), never logged. Also `--mfa-key-file`, the key that encrypts the second factor's secrets.
 */
import { readFileSync } from 'node:fs';
import { UsageError, nonEmpty } from '../shared/args';
import { ORG_ROLES, type OrgRole } from './storage/teams';

export const SSO_USAGE = `Dashboard sign-in: single sign-on (OpenID Connect) and the second factor (docs/dashboard-sign-in.md):
  --public-url URL       the service's address as browsers reach it (https://dictee.example.org);
                         the redirect URI to register is URL/dashboard/sso/callback
  --oidc-issuer URL      the OpenID provider's issuer (discovery at URL/.well-known/openid-configuration)
  --oidc-client-id ID    the client (application) id registered at the provider
  --oidc-client-secret-file FILE
                         a file holding the client secret (never on the command line)
  --oidc-role-map MAP    groups to dashboard roles: GROUP=ROLE,GROUP=ROLE (roles: owner, admin,
                         member), e.g. radiology-admins=admin,radiology=member
  --oidc-role-map-file FILE
                         the same as JSON, {"GROUP": "ROLE"} (group names with "," or "=")
  --oidc-groups-claim C  the claim that lists the person's groups (default groups)
  --oidc-scopes S        scopes asked for (default "openid email profile")
  --oidc-org ID          the organisation people sign in to (default: the first one)
  --oidc-trust-email     take the provider's email as verified when it sends no email_verified
                         (Entra ID, ADFS: a provider whose directory the hospital administers)
  --oidc-label TEXT      the sign-in button's provider name (default "single sign-on")
  --mfa-key-file FILE    32 random bytes (base64 or hex: openssl rand -base64 32) that encrypt the
                         second factor's secrets in the store (default: kept unencrypted)
`;

export const SSO_OPTIONS = {
  'public-url': { type: 'string' },
  'oidc-issuer': { type: 'string' },
  'oidc-client-id': { type: 'string' },
  'oidc-client-secret-file': { type: 'string' },
  'oidc-role-map': { type: 'string' },
  'oidc-role-map-file': { type: 'string' },
  'oidc-groups-claim': { type: 'string' },
  'oidc-scopes': { type: 'string' },
  'oidc-org': { type: 'string' },
  'oidc-trust-email': { type: 'boolean' },
  'oidc-label': { type: 'string' },
  'mfa-key-file': { type: 'string' },
} as const;

export interface OidcOptions {
  issuer: string;
  clientId: string;
  /** The file holding the client secret (read at start by `readClientSecret`). */
  clientSecretFile: string;
  /** Group name → role. */
  roleMap: Map<string, OrgRole>;
  groupsClaim: string;
  scopes: string;
  orgId?: string;
  trustEmail: boolean;
  label: string;
}

export interface SsoCliOptions {
  /** The service's public origin (no trailing slash), or undefined. */
  publicUrl?: string;
  oidc?: OidcOptions;
  /** `--mfa-key-file` (read at start: dashboard/totp.ts `SecretBox.fromFile`). */
  mfaKeyFile?: string;
}

type SsoValues = { [K in keyof typeof SSO_OPTIONS]?: (typeof SSO_OPTIONS)[K]['type'] extends 'string' ? string : boolean };

/** A URL that is http(s), without credentials, query or fragment (`what` names it in the message). */
function httpUrl(flag: string, v: string): URL {
  let u: URL;
  try {
    u = new URL(v);
  } catch {
    throw new UsageError(`${flag} must be a URL such as https://host.example.org (got ${JSON.stringify(v)})`);
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') throw new UsageError(`${flag} must be an http or https URL`);
  if (u.username || u.password || u.search || u.hash) throw new UsageError(`${flag} must have no user, password, query or fragment`);
  return u;
}

/** Whether an http URL's host is this machine (http is accepted only there: tests, a provider on the same host). */
export function isLoopbackHost(u: URL): boolean {
  return u.hostname === 'localhost' || u.hostname === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(u.hostname);
}

/** `GROUP=ROLE,GROUP=ROLE` or a JSON object, checked: every role one of ORG_ROLES, every group named. */
function parseRoleMap(flag: string, entries: Array<[string, unknown]>): Map<string, OrgRole> {
  const map = new Map<string, OrgRole>();
  for (const [group, role] of entries) {
    if (!group.trim()) throw new UsageError(`${flag}: a group name is empty`);
    if (typeof role !== 'string' || !(ORG_ROLES as readonly string[]).includes(role)) {
      throw new UsageError(
        `${flag}: the role of group ${JSON.stringify(group)} must be one of ${ORG_ROLES.join(', ')} (got ${JSON.stringify(role)})`,
      );
    }
    if (map.has(group)) throw new UsageError(`${flag}: group ${JSON.stringify(group)} is given twice`);
    map.set(group, role as OrgRole);
  }
  if (map.size === 0) throw new UsageError(`${flag} maps no group`);
  return map;
}

function inlineRoleMap(v: string): Map<string, OrgRole> {
  const entries = v.split(',').map((part): [string, string] => {
    const eq = part.lastIndexOf('=');
    if (eq < 0) throw new UsageError(`--oidc-role-map: ${JSON.stringify(part)} is not GROUP=ROLE`);
    return [part.slice(0, eq).trim(), part.slice(eq + 1).trim()];
  });
  return parseRoleMap('--oidc-role-map', entries);
}

function fileRoleMap(file: string): Map<string, OrgRole> {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new UsageError(`--oidc-role-map-file ${file}: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (!json || typeof json !== 'object' || Array.isArray(json)) {
    throw new UsageError('--oidc-role-map-file must hold a JSON object {"GROUP": "ROLE"}');
  }
  return parseRoleMap('--oidc-role-map-file', Object.entries(json));
}

/** The options of SSO_OPTIONS, checked (an `--oidc-*` flag without `--oidc-issuer`, or the issuer without what it needs: a UsageError). */
export function parseSsoOptions(v: SsoValues): SsoCliOptions {
  const out: SsoCliOptions = {};
  if (v['mfa-key-file'] !== undefined) out.mfaKeyFile = nonEmpty('--mfa-key-file', v['mfa-key-file']);
  if (v['public-url'] !== undefined) {
    const u = httpUrl('--public-url', v['public-url']);
    if (u.pathname !== '/') throw new UsageError('--public-url is the origin only (https://host[:port]), without a path');
    if (u.protocol === 'http:' && !isLoopbackHost(u)) throw new UsageError('--public-url must be https (http only for localhost)');
    out.publicUrl = u.origin;
  }
  const given = (Object.keys(SSO_OPTIONS) as Array<keyof SsoValues>).filter((k) => k.startsWith('oidc-') && v[k] !== undefined);
  if (v['oidc-issuer'] === undefined) {
    if (given.length) throw new UsageError(`--${given[0]} goes with --oidc-issuer`);
    return out;
  }
  const issuer = httpUrl('--oidc-issuer', v['oidc-issuer']);
  if (issuer.protocol === 'http:' && !isLoopbackHost(issuer)) throw new UsageError('--oidc-issuer must be https (http only for localhost)');
  if (!out.publicUrl) throw new UsageError('--oidc-issuer needs --public-url (the redirect URI is derived from it)');
  if (v['oidc-client-id'] === undefined) throw new UsageError('--oidc-issuer needs --oidc-client-id');
  if (v['oidc-client-secret-file'] === undefined) throw new UsageError('--oidc-issuer needs --oidc-client-secret-file');
  if ((v['oidc-role-map'] === undefined) === (v['oidc-role-map-file'] === undefined)) {
    throw new UsageError('--oidc-issuer needs one of --oidc-role-map or --oidc-role-map-file');
  }
  const scopes = v['oidc-scopes'] === undefined ? 'openid email profile' : nonEmpty('--oidc-scopes', v['oidc-scopes']).trim();
  if (!scopes.split(/\s+/).includes('openid')) throw new UsageError('--oidc-scopes must include openid');
  out.oidc = {
    issuer: v['oidc-issuer'],
    clientId: nonEmpty('--oidc-client-id', v['oidc-client-id']),
    clientSecretFile: nonEmpty('--oidc-client-secret-file', v['oidc-client-secret-file']),
    roleMap: v['oidc-role-map'] !== undefined ? inlineRoleMap(v['oidc-role-map']) : fileRoleMap(v['oidc-role-map-file']!),
    groupsClaim: v['oidc-groups-claim'] === undefined ? 'groups' : nonEmpty('--oidc-groups-claim', v['oidc-groups-claim']),
    scopes,
    trustEmail: v['oidc-trust-email'] === true,
    label: v['oidc-label'] === undefined ? 'single sign-on' : nonEmpty('--oidc-label', v['oidc-label']),
    ...(v['oidc-org'] !== undefined ? { orgId: nonEmpty('--oidc-org', v['oidc-org']) } : {}),
  };
  return out;
}

/** The client secret from its file (trimmed); a clear error that names the file, never its content. */
export function readClientSecret(file: string): string {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new UsageError(`--oidc-client-secret-file ${file} cannot be read (${(e as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  const secret = text.trim();
  if (!secret) throw new UsageError(`--oidc-client-secret-file ${file} is empty`);
  if (/[\r\n]/.test(secret)) throw new UsageError(`--oidc-client-secret-file ${file} must hold the secret on one line`);
  return secret;
}
