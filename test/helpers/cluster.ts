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
import type { BatchReplaceMessage, TranscriptMessage } from '../../src/protocol';
import { TranscriptModel } from '../../src/client/transcript';
import { type TestPostgres, type TestRedis, startPostgres, startRedis } from './backends';
import { type TestServer, WsProbe, startServer } from './server';
import { framesOf, scriptFile, silence, tone } from './speech';

/** 100 ms of 16 kHz 16-bit mono audio. */
export const FRAME = 3200;

export const WORDS = Array.from({ length: 80 }, (_, i) => `w${i + 1}`);

/** The script of {@link WORDS}. */
export function clusterScript(): string {
  return scriptFile(WORDS.join(' '));
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
  const masterKey = o.masterKey ?? `master_${randomBytes(24).toString('base64url')}`;
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
export async function tryConfigure(
  server: TestServer,
  key: string,
  config: Record<string, unknown> = {},
): Promise<{ probe: WsProbe; answer: Record<string, unknown> }> {
  const probe = new WsProbe(server.wsUrl, { header: key });
  await probe.opened;
  probe.send({ type: 'configure', config });
  const answer = await probe.waitFor((m) => m.type === 'configured' || m.type === 'error', 10_000, 'configured or error');
  return { probe, answer };
}

/**
 * PostgreSQL and Redis for a `describe` (started before it, destroyed after), a fresh database per call of
 * `database()`, and the instances of each test stopped after it.
 */
export function useBackends(prefix: string): {
  readonly pg: TestPostgres;
  readonly redis: TestRedis;
  readonly dbName: string;
  database(): Promise<string>;
  track(servers: TestServer[]): TestServer[];
} {
  let pg: TestPostgres | undefined;
  let redis: TestRedis | undefined;
  let n = 0;
  let running: TestServer[] = [];
  before(async () => {
    [pg, redis] = await Promise.all([startPostgres(), startRedis()]);
  });
  afterEach(async () => {
    await stopAll(running);
    running = [];
  });
  after(async () => {
    await Promise.all([pg?.destroy(), redis?.destroy()]);
  });
  return {
    get pg() {
      return pg!;
    },
    get redis() {
      return redis!;
    },
    get dbName() {
      return `${prefix}_${n}`;
    },
    database: () => pg!.createDatabase(`${prefix}_${++n}`),
    track(servers) {
      running.push(...servers);
      return servers;
    },
  };
}

/** A raw client dictating `dictation()` in English: its connection (a new one after `resumeOn`), and the transcript received over all of them. */
export class LiveDictation {
  readonly audio = dictation();
  readonly model = new TranscriptModel();
  private seen = 0;

  private constructor(
    public probe: WsProbe,
    public configured: Record<string, unknown>,
  ) {}

  static async start(server: TestServer, key: string): Promise<LiveDictation> {
    const probe = new WsProbe(server.wsUrl, { header: key });
    return new LiveDictation(probe, await probe.configure({ language: 'en' }));
  }

  get sessionId(): string {
    return String(this.configured.session_id);
  }

  /** Sends the dictation's 100 ms frames `from` up to `to` (excluded; default: the end). */
  send(from: number, to?: number): void {
    for (const f of framesOf(this.audio.subarray(from * FRAME, to === undefined ? undefined : to * FRAME))) this.probe.sendAudio(f);
  }

  /** The committed words, after every message received so far. */
  words(): string[] {
    for (const m of this.probe.messages.slice(this.seen)) {
      if (m.type === 'transcript' || m.type === 'batch.replace') this.model.apply(m as unknown as TranscriptMessage | BatchReplaceMessage);
    }
    this.seen = this.probe.messages.length;
    return this.model.committedText().split(/\s+/).filter(Boolean);
  }

  /** Continues on a new connection to `server` with `resume` (provisional text dropped, as a client does); resolves with its `configured`. */
  async resumeOn(server: TestServer, key: string): Promise<Record<string, unknown>> {
    this.words();
    this.model.dropProvisional();
    const probe = new WsProbe(server.wsUrl, { header: key });
    const configured = await probe.configure({
      language: 'en',
      resume: { session_id: this.sessionId, last_seq: this.model.lastHandledSeq ?? 0 },
    });
    this.probe = probe;
    this.seen = 0;
    return configured;
  }

  /** Sends the rest from `fromByte` (a `resume_audio_offset`), stops, and resolves with the words once closed. */
  async finishFrom(fromByte: number): Promise<string[]> {
    for (const f of framesOf(this.audio.subarray(fromByte))) this.probe.sendAudio(f);
    return this.stop();
  }

  async stop(): Promise<string[]> {
    await this.probe.roundTrip();
    this.probe.send({ type: 'control', action: 'stop' });
    await this.probe.closed;
    return this.words();
  }
}
