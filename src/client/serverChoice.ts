/**
 * Which service `npm run client` talks to, and why (it says so before it sends anything): `--server URL`,
 * else `DICTEE_SERVER_URL`, else the service `npm start` is running from this clone (it writes its address
 * in `.dictee-data/dev/service.json` while it runs: its port may not be 8787), else the default address.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { DEFAULT_SERVER_URL } from '../protocol/http';

/** Where `npm start` (scripts/start.mjs) writes the address of its service while it runs, from the clone's root. */
export const START_SERVICE_FILE = path.join('.dictee-data', 'dev', 'service.json');

/** The service `npm start` runs from the clone at `root`: its address, while the `npm start` that wrote it still runs. */
export function runningStartService(root = process.cwd()): string | undefined {
  let entry: { url?: unknown; pid?: unknown };
  try {
    entry = JSON.parse(readFileSync(path.join(root, START_SERVICE_FILE), 'utf8')) as { url?: unknown; pid?: unknown };
  } catch {
    return undefined;
  }
  if (typeof entry.url !== 'string' || typeof entry.pid !== 'number') return undefined;
  try {
    process.kill(entry.pid, 0);
  } catch (e) {
    // EPERM: it runs, as another user; anything else: it is gone (a file left by a start that was killed).
    if ((e as NodeJS.ErrnoException).code !== 'EPERM') return undefined;
  }
  return entry.url;
}

/** The service to use and why, in the words the client prints. */
export function chooseServer(
  flag: string | undefined,
  env: NodeJS.ProcessEnv,
  startService: () => string | undefined = runningStartService,
): { url: string; why: string } {
  if (flag !== undefined) return { url: flag, why: '--server' };
  const fromEnv = env.DICTEE_SERVER_URL?.trim();
  if (fromEnv) return { url: fromEnv, why: 'DICTEE_SERVER_URL' };
  const started = startService();
  if (started) return { url: started, why: `the service npm start is running (${START_SERVICE_FILE})` };
  return { url: DEFAULT_SERVER_URL, why: 'the default; --server URL or DICTEE_SERVER_URL chooses another' };
}
