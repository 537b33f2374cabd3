/**
 * The built service as the engine benches drive it: started with an engine, one API key, and sessions that
 * stream frames on a real-time clock and record every event with its arrival time. Also the in-process
 * recognizers the benches compare against. Not a bench itself (run.ts reads only *.bench.ts).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import WebSocket from 'ws';
import type { EffectiveConfig } from '../src/protocol';
import { DEFAULT_POCKETSPHINX_MODEL, loadPocketsphinx, pocketsphinxModel } from '../src/server/engine/pocketsphinx/ffi';
import { PocketsphinxRecognizer, Proofreader } from '../src/server/engine/pocketsphinx/recognizer';
import type { Recognizer } from '../src/server/engine/recognizer';
import { SimulatedEngine } from '../src/server/engine/simulated';

export const CONFIG = { language: 'en' as const };

export interface Svc {
  child: ChildProcess;
  url: string;
  ws: string;
  key: string;
  /** Spare decoders the service's workers have loaded so far (its debug log says each). */
  spares: number;
}

export async function startService(
  engine: 'pocketsphinx' | 'simulated',
  extraArgs: string[] = [],
  env: Record<string, string> = {},
  /** The service's build to run (default: this checkout's dist/server.js). */
  serverJs = path.resolve(__dirname, '..', 'dist', 'server.js'),
): Promise<Svc> {
  const masterKey = `bench_${randomBytes(16).toString('hex')}`;
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'dictee-bench-engine-'));
  const child = spawn(
    process.execPath,
    [
      serverJs,
      '--port',
      '0',
      '--data-dir',
      dataDir,
      '--engine',
      engine,
      '--concurrency-limit',
      '1000',
      '--rate-limit',
      '100000',
      ...extraArgs,
    ],
    { env: { ...process.env, ...env, DICTEE_MASTER_KEY: masterKey, DICTEE_LOG_LEVEL: 'debug' }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  // The log's tail is shown if the service ends before the bench does.
  let tail = '';
  let lines = '';
  const counts = { spares: 0 };
  child.stderr!.on('data', (d: Buffer) => {
    tail = (tail + d.toString()).slice(-4000);
    lines += d.toString();
    const all = lines.split('\n');
    lines = all.pop()!;
    for (const l of all) if (l.includes('"msg":"decoder worker loaded a spare decoder"')) counts.spares++;
  });
  child.once('exit', (code, signal) => {
    if (code !== 0) console.error(`the ${engine} service exited (code ${code}, signal ${signal}); its log ended with:\n${tail}`);
  });
  const port = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.once('exit', (code) => reject(new Error(`the ${engine} service exited (${code})`)));
  });
  const url = `http://127.0.0.1:${port}`;
  const res = await fetch(`${url}/v1/api-keys`, {
    method: 'POST',
    headers: { authorization: `Bearer ${masterKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'bench', type: 'personal' }),
  });
  const { key } = (await res.json()) as { key: string };
  return {
    child,
    url,
    ws: `ws://127.0.0.1:${port}/api/v1/audio/live`,
    key,
    get spares() {
      return counts.spares;
    },
  };
}

export interface Received {
  at: number;
  type: string;
  status?: string;
  text?: string;
  replaceText?: string;
  /** A transcript's chunk id; a batch.replace's targets. */
  id?: string;
  targets?: string[];
}

/**
 * The session's final text as a client keeps it (the protocol's rule): its `final` chunks in order, each
 * sentence's finals replaced by its `batch.replace` where one came. A sentence whose proofreading never
 * came keeps its first pass: reading only the `batch.replace` chunks would count its words as lost.
 */
export function finalText(events: readonly Received[]): string {
  const chunks: Array<{ id: string; text: string }> = [];
  for (const e of events) {
    if (e.type === 'transcript' && e.status === 'final' && e.id !== undefined) {
      const i = chunks.findIndex((c) => c.id === e.id);
      if (i >= 0) chunks[i] = { id: e.id, text: e.text ?? '' };
      else chunks.push({ id: e.id, text: e.text ?? '' });
    } else if (e.type === 'batch.replace' && e.targets) {
      const at = chunks.findIndex((c) => e.targets!.includes(c.id));
      const kept = chunks.filter((c) => !e.targets!.includes(c.id));
      kept.splice(at < 0 ? kept.length : at, 0, { id: '', text: e.replaceText ?? '' });
      chunks.splice(0, chunks.length, ...kept);
    }
  }
  return chunks
    .map((c) => c.text)
    .filter((t) => t !== '')
    .join(' ');
}

/** One session: frames sent on a real-time clock; every event with its arrival time. */
export async function session(
  svc: Svc,
  frames: Buffer[],
  opts: {
    offsetMs?: number;
    stop?: boolean;
    config?: object;
    /** With `stop: false`: how long after the last frame events still count (default 1500 ms). */
    graceMs?: number;
  } = {},
): Promise<{ sent: number[]; events: Received[]; errors: number; errorCodes: string[] }> {
  const ws = new WebSocket(svc.ws, { headers: { authorization: `Bearer ${svc.key}` } });
  const events: Received[] = [];
  let errors = 0;
  const errorCodes: string[] = [];
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  ws.send(JSON.stringify({ type: 'configure', config: opts.config ?? CONFIG }));
  const stopped = new Promise<void>((resolve) => {
    ws.on('message', (d) => {
      const at = performance.now();
      const m = JSON.parse(String(d)) as {
        type: string;
        status?: string;
        state?: string;
        text?: string;
        id?: string;
        code?: string;
        data?: { target_ids: string[]; new_chunk: { text: string } };
      };
      if (m.type === 'error') {
        errors++;
        errorCodes.push(m.code ?? '');
      }
      if (m.type === 'status' && m.state === 'stopped') resolve();
      if (m.type === 'transcript' || m.type === 'batch.replace') {
        events.push({
          at,
          type: m.type,
          ...(m.status ? { status: m.status } : {}),
          ...(m.text !== undefined ? { text: m.text } : {}),
          ...(m.data ? { replaceText: m.data.new_chunk.text, targets: m.data.target_ids } : {}),
          ...(m.id !== undefined ? { id: m.id } : {}),
        });
      }
    });
    ws.once('close', () => resolve());
  });
  await new Promise<void>((resolve) => ws.once('message', () => resolve())); // configured
  const sent: number[] = [];
  const t0 = performance.now() + (opts.offsetMs ?? 0);
  for (let i = 0; i < frames.length; i++) {
    const wait = t0 + i * 100 - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    sent.push(performance.now());
    ws.send(frames[i]!);
  }
  // With `stop: false`, only the events within `graceMs` (1.5 s) of the last frame count (no flush of the
  // stop among them); the session is stopped all the same, so that its decoder is freed.
  let counted = Number.POSITIVE_INFINITY;
  if (opts.stop === false) {
    await new Promise((r) => setTimeout(r, opts.graceMs ?? 1500));
    counted = events.length;
  }
  ws.send(JSON.stringify({ type: 'control', action: 'stop' }));
  await stopped;
  ws.terminate();
  return { sent, events: events.slice(0, counted), errors, errorCodes };
}

let proofreader: Proofreader | undefined;
const psModel = (): ReturnType<typeof pocketsphinxModel> => pocketsphinxModel(DEFAULT_POCKETSPHINX_MODEL);

export function recognizerFor(engine: 'pocketsphinx' | 'simulated', cfg: EffectiveConfig): Recognizer {
  if (engine === 'simulated') return new SimulatedEngine().create(cfg);
  return new PocketsphinxRecognizer(loadPocketsphinx(), psModel(), () => (proofreader ??= new Proofreader(loadPocketsphinx(), psModel())));
}

/**
 * The frame that causes each event, from the same deterministic pipeline run here: `sync` for the
 * events a frame produces at once (in order), `late` for the batch.replace of a sentence the frame
 * ended when the engine proofreads later (pocketsphinx).

/** Ends the service and waits for its exit. */
export async function stopService(svc: Svc): Promise<void> {
  if (svc.child.exitCode !== null || svc.child.signalCode !== null) return;
  const exited = new Promise((resolve) => svc.child.once('exit', resolve));
  svc.child.kill('SIGTERM');
  await exited;
}

/** Frees the in-process proofreading decoder of {@link recognizerFor}. */
export function disposeProofreader(): void {
  proofreader?.dispose();
  proofreader = undefined;
}
