/**
 * Which API key goes to which service: one key per service address in the secret storage (a key set for
 * one service is never sent to another), the key `DICTEE_API_KEY` hands in (`npm start`'s development
 * key) for the address VS Code starts with, and the old single key of earlier versions moved to the
 * current address once. Pure (no `vscode`): it works on anything shaped like VS Code's SecretStorage;
 * apiKeyStore.ts wraps it for the commands. Keys are never logged, only their redacted form.
 *
 * The rules:
 * - the key for an address is the one stored for it, else the environment's key when VS Code started
 *   with that address;
 * - the environment's key replaces, at start, the key stored for its address (a launcher hands the key
 *   its service takes now: a stale stored one, revoked since, must not beat it);
 * - Clear API Key removes the stored key: the environment's key (if any, same address) is used again.
 */
import { looksLikeApiKey, redactKey } from '../protocol/http';
import { errorMessage } from '../shared/errors';
import type { Logger } from '../shared/logger';

/** What the key book needs of VS Code's SecretStorage. */
export interface SecretsLike {
  get(key: string): Thenable<string | undefined>;
  store(key: string, value: string): Thenable<void>;
  delete(key: string): Thenable<void>;
}

/** Where earlier versions kept their one key (for every address). */
export const LEGACY_SECRET = 'dictee.apiKey';
const PREFIX = 'dictee.apiKey@';

/** The address a key belongs to: its scheme (ws as http), host and port, and path without a final "/". */
export function serviceOf(serverUrl: string): string {
  try {
    const u = new URL(serverUrl.trim());
    if (u.protocol === 'ws:') u.protocol = 'http:';
    else if (u.protocol === 'wss:') u.protocol = 'https:';
    const path = u.pathname.replace(/\/+$/u, '');
    return `${u.protocol}//${u.host}${path}`;
  } catch {
    return serverUrl.trim();
  }
}

/** The secret storage's id of the key for `serverUrl`. */
export function secretIdFor(serverUrl: string): string {
  return `${PREFIX}${serviceOf(serverUrl)}`;
}

export class ApiKeyBook {
  /** The environment's key and the address VS Code started with. */
  private env: { service: string; key: string } | undefined;

  constructor(
    private readonly secrets: SecretsLike,
    private readonly log: Logger,
  ) {}

  /** Once, at start: the old single key moved to `serverUrl`, then the environment's key (if any) for it. */
  async start(serverUrl: string, envKey: string | undefined, envName = 'DICTEE_API_KEY'): Promise<void> {
    const id = secretIdFor(serverUrl);
    try {
      const legacy = await this.secrets.get(LEGACY_SECRET);
      if (legacy) {
        if (!(await this.secrets.get(id))) await this.secrets.store(id, legacy);
        await this.secrets.delete(LEGACY_SECRET);
        this.log.info(`API key ${redactKey(legacy)} is now the key for ${serviceOf(serverUrl)} (keys are kept per service address)`);
      }
    } catch (e) {
      this.log.error(`cannot move the stored API key to ${serviceOf(serverUrl)}: ${errorMessage(e)}`);
    }
    const candidate = envKey?.trim();
    if (!candidate) return;
    if (!looksLikeApiKey(candidate)) {
      this.log.warn(`${envName} is set but does not hold an API key (svc_live_…, svc_test_… or svc_proj_…); ignored`);
      return;
    }
    this.env = { service: serviceOf(serverUrl), key: candidate };
    try {
      const stored = await this.secrets.get(id);
      if (stored === candidate) return;
      await this.secrets.store(id, candidate);
      this.log.info(
        stored
          ? `API key ${redactKey(candidate)} from ${envName} replaces the key ${redactKey(stored)} stored for ${serviceOf(serverUrl)}`
          : `API key ${redactKey(candidate)} taken from ${envName} and stored for ${serviceOf(serverUrl)}`,
      );
    } catch (e) {
      this.log.error(`cannot store the API key from ${envName}: ${errorMessage(e)}`);
    }
  }

  /** The key for `serverUrl`: the one stored for it, else the environment's key for that address. */
  async get(serverUrl: string): Promise<{ key: string; from: 'stored' | 'environment' } | undefined> {
    try {
      const k = await this.secrets.get(secretIdFor(serverUrl));
      if (k) return { key: k, from: 'stored' };
    } catch (e) {
      this.log.error(`cannot read the API key from the secret storage: ${errorMessage(e)}`);
    }
    const env = this.env;
    return env && env.service === serviceOf(serverUrl) ? { key: env.key, from: 'environment' } : undefined;
  }

  async set(serverUrl: string, key: string): Promise<void> {
    await this.secrets.store(secretIdFor(serverUrl), key);
  }

  /** Removes the key stored for `serverUrl`; says whether there was one, and whether the environment's key now applies. */
  async clear(serverUrl: string): Promise<{ had: boolean; fallback: boolean }> {
    const id = secretIdFor(serverUrl);
    const had = (await this.secrets.get(id)) !== undefined;
    await this.secrets.delete(id);
    return { had, fallback: (await this.get(serverUrl)) !== undefined };
  }
}
