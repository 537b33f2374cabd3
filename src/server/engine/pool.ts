/**
 * The decoder pool: worker threads (one per core by default), each hosting the segmenters and
 * decoders of several sessions (engine/worker.ts). A session gets the least busy worker and talks
 * to it through a {@link RemotePort}. Audio goes over as transferred buffers.
 *
 * - Backpressure: when some session has more than {@link MAX_QUEUED_MS} of audio waiting to be
 *   decoded, {@link DecoderPool.busy} says so and the service refuses new sessions; audio of running
 *   sessions is never dropped.
 * - Crash isolation: a worker that dies (an uncaught exception, an exit) ends its sessions with
 *   their text so far made final; a new worker takes its place. A session whose decoder throws ends
 *   alone. A fault in native code (a segmentation fault) takes the whole process down: worker
 *   threads share it.
 */
import { Worker } from 'node:worker_threads';
import type { ServerLogger } from '../log';
import type { ChunkEvent, SegmenterCheckpoint } from './segmenter';
import type { PortInit, SegmenterPort } from './segmenterPort';
import { Vad } from './vad';
import type { EngineBusy } from './engine';
import type { FromWorker, ToWorker, WorkerEngine } from './workerProtocol';

/** Audio waiting to be decoded, per session, above which new sessions are refused. */
export const MAX_QUEUED_MS = 2000;

interface PoolWorker {
  worker: Worker;
  ports: Map<string, RemotePort>;
  exiting: boolean;
  /** It loaded the engine once: a worker that never did is not replaced (it would fail again). */
  wasReady: boolean;
}

class RemotePort implements SegmenterPort {
  received: number;
  decoded: number;
  private pending: ChunkEvent[] = [];
  private cp: SegmenterCheckpoint;
  private nextReq = 1;
  private readonly flushes = new Map<number, () => void>();
  private dead = false;
  private closed = false;
  /** Last time the worker said it worked for this session (events or progress). */
  progressAt = 0;

  constructor(
    private readonly init: PortInit,
    private readonly host: PoolWorker,
    engineSnapshot: unknown,
  ) {
    this.cp = init.restore ?? {
      audioOffset: 0,
      engine: engineSnapshot,
      vad: new Vad().state(),
      silenceMs: 0,
      sentenceEnded: true,
      nextIndex: 0,
      sentence: [],
    };
    this.received = this.cp.audioOffset;
    this.decoded = this.cp.audioOffset;
  }

  get receivedBytes(): number {
    return this.received;
  }

  get audioSeconds(): number {
    return this.received / 2 / this.init.config.sample_rate;
  }

  get queuedBytes(): number {
    return this.dead ? 0 : this.received - this.decoded;
  }

  get queuedMs(): number {
    return (this.queuedBytes / 2 / this.init.config.sample_rate) * 1000;
  }

  push(pcm: Buffer): void {
    if (this.dead || this.closed) return;
    const copy = new ArrayBuffer(pcm.length);
    new Uint8Array(copy).set(pcm);
    this.received += pcm.length;
    this.send({ t: 'audio', id: this.init.sessionId, pcm: copy }, [copy]);
  }

  flush(opts: { proofread: boolean }): Promise<void> | undefined {
    if (this.dead || this.closed) return undefined;
    const req = this.nextReq++;
    return new Promise<void>((resolve) => {
      this.flushes.set(req, resolve);
      this.send({ t: 'flush', id: this.init.sessionId, req, proofread: opts.proofread });
    });
  }

  pendingChunks(): ChunkEvent[] {
    return this.pending.map((c) => ({ ...c }));
  }

  checkpoint(): SegmenterCheckpoint {
    return this.cp;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.dead) return;
    this.send({ t: 'close', id: this.init.sessionId });
  }

  /** A message from the worker about this session. */
  receive(m: FromWorker): void {
    if (m.t === 'events' || m.t === 'progress') this.progressAt = Date.now();
    if (m.t === 'events') {
      if (m.decodeMs !== undefined) this.init.onDecoded?.((m.decoded - this.decoded) / 2 / this.init.config.sample_rate, m.decodeMs / 1000);
      this.decoded = m.decoded;
      this.pending = m.pending;
      this.cp = m.checkpoint;
      if (m.events.length) this.init.onEvents(m.events);
      if (m.flushed !== undefined) {
        this.flushes.get(m.flushed)?.();
        this.flushes.delete(m.flushed);
      }
    } else if (m.t === 'failed') {
      this.fail(`the decoder failed: ${m.message}`);
    }
  }

  /** The decoder is gone: the session ends; waiting flushes are released. */
  fail(message: string): void {
    if (this.dead) return;
    this.dead = true;
    this.host.ports.delete(this.init.sessionId);
    if (!this.closed) this.init.onFailure(message);
    for (const resolve of this.flushes.values()) resolve();
    this.flushes.clear();
  }

  private send(m: ToWorker, transfer: ArrayBuffer[] = []): void {
    this.host.worker.postMessage(m, transfer);
  }
}

interface PoolOptions {
  size: number;
  /** Path of the built worker entry (dist/engine-worker.js). */
  script: string;
  spec: WorkerEngine;
  /** The engine's checkpoint of a fresh decoder (what a new session starts from). */
  engineSnapshot: unknown;
  log: ServerLogger;
}

export class DecoderPool {
  private readonly workers: PoolWorker[] = [];
  private closing = false;

  constructor(private readonly opts: PoolOptions) {}

  /** Starts every worker; rejects with the engine's own message when one cannot load it. */
  async start(): Promise<void> {
    const started = Array.from({ length: this.opts.size }, () => this.spawn());
    try {
      await Promise.all(started.map((w) => w.ready));
    } catch (e) {
      await this.close();
      throw e;
    }
  }

  open(init: PortInit): RemotePort {
    let host = this.workers[0];
    for (const w of this.workers) if (!host || w.ports.size < host.ports.size) host = w;
    if (!host) throw new Error('the decoder pool is closed');
    const port = new RemotePort(init, host, this.opts.engineSnapshot);
    host.ports.set(init.sessionId, port);
    host.worker.postMessage({
      t: 'open',
      id: init.sessionId,
      config: init.config,
      ...(init.restore ? { restore: init.restore } : {}),
    } satisfies ToWorker);
    return port;
  }

  /** Set while some session has more than {@link MAX_QUEUED_MS} of audio waiting to be decoded. */
  busy(): EngineBusy | undefined {
    let worst = 0;
    for (const w of this.workers) for (const p of w.ports.values()) worst = Math.max(worst, p.queuedMs);
    if (worst <= MAX_QUEUED_MS) return undefined;
    const retryAfterMs = Math.min(30_000, Math.max(1000, Math.ceil(worst)));
    return {
      retryAfterMs,
      message: `speech decoding is behind real time (${Math.round(worst)} ms of audio waiting in a session, more than ${MAX_QUEUED_MS} ms): no new session now; retry after ${retryAfterMs} ms`,
    };
  }

  get size(): number {
    return this.workers.length;
  }

  async close(): Promise<void> {
    this.closing = true;
    const all = this.workers.splice(0);
    await Promise.all(all.map((w) => ((w.exiting = true), w.worker.terminate())));
  }

  private spawn(): PoolWorker & { ready: Promise<void> } {
    const worker = new Worker(this.opts.script, { workerData: this.opts.spec });
    const host: PoolWorker = { worker, ports: new Map(), exiting: false, wasReady: false };
    this.workers.push(host);
    const ready = new Promise<void>((resolve, reject) => {
      worker.on('message', (m: FromWorker) => {
        if (m.t === 'ready') {
          host.wasReady = true;
          resolve();
        } else if (m.t === 'fatal') reject(new Error(m.message));
        else if (m.t === 'closed') host.ports.delete(m.id);
        else if (m.t === 'spare') this.opts.log.debug('decoder worker loaded a spare decoder', { ms: m.ms, sessions_hosted: m.hosted });
        else host.ports.get(m.id)?.receive(m);
      });
      worker.on('error', (e) => {
        this.opts.log.error('decoder worker crashed', { error: e, sessions: host.ports.size });
        reject(e);
      });
      worker.on('exit', (code) => {
        reject(new Error(`the decoder worker exited (code ${code}) before it was ready`));
        this.lost(host, code);
      });
    });
    ready.catch(() => undefined); // observed by start(); a crash later is handled by lost()
    return Object.assign(host, { ready });
  }

  /** A worker is gone: its sessions end, a new worker takes its place. */
  private lost(host: PoolWorker, code: number): void {
    const i = this.workers.indexOf(host);
    if (i >= 0) this.workers.splice(i, 1);
    if (host.exiting || this.closing) return;
    for (const port of [...host.ports.values()]) port.fail(`the decoder worker stopped unexpectedly (exit code ${code})`);
    if (!host.wasReady) {
      this.opts.log.error('decoder worker could not load the engine: not replaced', { exit_code: code, workers_left: this.workers.length });
      return;
    }
    this.opts.log.warn('decoder worker replaced', { exit_code: code });
    this.spawn();
  }
}
