/**
 * Several instances of the BUILT service sharing one PostgreSQL database (and Redis), as a deployment
 * runs them; and a dictation to stream through them whose words are known exactly.
 *
 * The dictation is a pure tone: the simulated engine releases exactly one script word per 300 ms of
 * voiced audio, so the committed text tells how much voiced audio the service took: a word missing means
 * audio lost, an extra word audio taken twice, a repeated word text duplicated.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type TestServer, WsProbe, startServer } from './server';
import { silence, tone } from './speech';

export const WORDS = Array.from({ length: 80 }, (_, i) => `w${i + 1}`);

export function scriptFile(): string {
  const f = path.join(mkdtempSync(path.join(os.tmpdir(), 'dictee-cluster-')), 'script.txt');
  writeFileSync(f, WORDS.join(' '));
  return f;
}

/** Four sentences of 10 words each (3 s of tone), each followed by a 3 s pause (their finals come 2 s into it). */
export function dictation(): Buffer {
  const parts: Buffer[] = [];
  for (let i = 0; i < 4; i++) parts.push(tone(3000), silence(3000));
  return Buffer.concat(parts);
}

/** The words of the dictation: WORDS[0..39]. */
export const DICTATED = WORDS.slice(0, 40);

export interface ClusterOptions {
  database: string;
  redis?: string;
  args?: string[];
  env?: Record<string, string>;
  script?: string;
  masterKey?: string;
}

/** `n` instances (`i1`, `i2`, …) on free ports, started together, sharing the database, Redis and master key. */
export async function startInstances(n: number, o: ClusterOptions): Promise<TestServer[]> {
  const masterKey = o.masterKey ?? `master_${randomBytes(18).toString('base64url')}`;
  return Promise.all(
    Array.from({ length: n }, (_, i) =>
      startServer({
        script: o.script,
        args: ['--database', o.database, ...(o.redis ? ['--redis', o.redis] : []), '--instance-id', `i${i + 1}`, ...(o.args ?? [])],
        env: { ...o.env, DICTEE_MASTER_KEY: masterKey },
      }),
    ),
  );
}

export async function stopAll(servers: Array<TestServer | undefined>): Promise<void> {
  await Promise.all(servers.map((s) => s?.stop()));
}

/** Opens a WebSocket with `key` and configures; resolves with the probe and its first answer (configured or error). */
export async function tryConfigure(server: TestServer, key: string, config: Record<string, unknown> = {}): Promise<{ probe: WsProbe; answer: Record<string, unknown> }> {
  const probe = new WsProbe(server.wsUrl, { header: key });
  await probe.opened;
  probe.send({ type: 'configure', config });
  const answer = await probe.waitFor((m) => m.type === 'configured' || m.type === 'error', 10_000, 'configured or error');
  return { probe, answer };
}
