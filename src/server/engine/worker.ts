/**
 * Entry point of a decoder worker thread (built to dist/engine-worker.js). Hosts one segmenter and
 * one recognizer per session, so that decoding never blocks the service's event loop. Messages are
 * handled in order: a flush is answered after the audio sent before it is decoded.
 */
import { errorMessage } from '../../shared/errors';
import { setPriority } from 'node:os';
import { performance } from 'node:perf_hooks';
import { parentPort, workerData } from 'node:worker_threads';
import type { EffectiveConfig } from '../../protocol';
import { type SegmentEvent, Segmenter } from './segmenter';
import { type UtteranceDetails, loadPocketsphinx } from './pocketsphinx/ffi';
import type { TokenTimes } from './sherpa/tokens';
import { type ProofreadAnswer, type ProofreadJob, ThreadProofreader, tooLate } from './pocketsphinx/proofreadThread';
import { Proofreader } from './pocketsphinx/recognizer';
import { type Factory, pocketsphinxFactory } from './pocketsphinx/factory';
import { modelKey } from './pocketsphinx/modelSet';
import type { Recognizer } from './recognizer';
import { sherpaFactory, sherpaProofreader } from './sherpa/factory';
import { SileroVad, loadVadAddon, verifySileroModel } from './sileroVad';
import { SimulatedEngine } from './simulated';
import type { VoiceDetector } from './vad';
import type { FromWorker, ToWorker, WorkerEngine } from './workerProtocol';

/**
 * Test hook (docs/server.md): a worker thread throws an uncaught exception once a session has had
 * this many ms of audio decoded, to prove that a crashed decoder ends only its sessions.
 */
const CRASH_AFTER_MS = Number(process.env.DICTEE_TEST_DECODER_CRASH_AFTER_MS ?? '') || 0;

/**
 * Test hook (docs/server.md): a decoder worker blocks this many ms before it decodes each audio
 * frame, as one starved of CPU by other work on the machine does: decoding falls behind real time,
 * deterministically.
 */
const DELAY_MS = Number(process.env.DICTEE_TEST_DECODER_DELAY_MS ?? '') || 0;
const delayCell = DELAY_MS ? new Int32Array(new SharedArrayBuffer(4)) : undefined;

interface Hosted {
  segmenter: Segmenter;
  recognizer: Recognizer;
  decoded: number;
  config: EffectiveConfig;
}

function post(m: FromWorker): void {
  parentPort!.postMessage(m);
}

function factory(spec: WorkerEngine): Factory {
  if (spec.engine === 'simulated') {
    const simulated = new SimulatedEngine(spec.script);
    return { make: (config) => simulated.create(config), prepare: () => undefined };
  }
  if (spec.engine === 'pocketsphinx') return pocketsphinxFactory(spec.models, new ThreadProofreader(__filename, spec));
  return sherpaFactory(spec, __filename);
}

const sessions = new Map<string, Hosted>();
let engine: Factory;
/** Each session's voice-activity detector (undefined: the segmenter's own energy detector). */
let detector: (() => VoiceDetector) | undefined;

/** `--vad silero`: the file checked again here, in JavaScript, before the native runtime reads it. */
function sileroDetector(file: string): () => VoiceDetector {
  const model = verifySileroModel(file);
  const addon = loadVadAddon();
  // Loaded and run once now, on two blocks of silence: a runtime that cannot fails the start.
  new SileroVad(addon, model).windowOf(new Int16Array(1024), 0, 1024);
  return () => new SileroVad(addon, model);
}

/** Loads a spare decoder and says so (the service logs it at debug level, with the sessions hosted). */
function loadSpare(): void {
  try {
    const t0 = performance.now();
    engine.prepare();
    post({ t: 'spare', ms: Math.round(performance.now() - t0), hosted: sessions.size });
  } catch {
    /* the next session loads its own decoder, and reports its failure */
  }
}

/** Loads a spare decoder once the messages already waiting are handled, if no session came meanwhile. */
function prepareWhenIdle(): void {
  setImmediate(() => {
    if (sessions.size === 0) loadSpare();
  });
}

function report(id: string, h: Hosted, events: SegmentEvent[], flushed?: number, decodeMs?: number): void {
  post({
    t: 'events',
    id,
    events,
    decoded: h.decoded,
    pending: h.segmenter.pendingChunks(),
    checkpoint: h.segmenter.checkpoint(),
    ...(flushed !== undefined ? { flushed } : {}),
    ...(decodeMs !== undefined ? { decodeMs } : {}),
  });
}

function drop(id: string, h: Hosted): void {
  sessions.delete(id);
  try {
    h.recognizer.dispose?.();
  } catch {
    /* already failing */
  }
}

function handle(m: ToWorker): void {
  if (m.t === 'open') {
    let progressAt = 0;
    const recognizer = engine.make(m.config, () => {
      const now = Date.now();
      if (now - progressAt < 1000) return;
      progressAt = now;
      post({ t: 'progress', id: m.id });
    });
    const hosted: Hosted = { recognizer, decoded: m.restore?.audioOffset ?? 0, config: m.config } as Hosted;
    hosted.segmenter = new Segmenter(m.config, recognizer, {
      ...(m.restore ? { restore: m.restore } : {}),
      ...(detector ? { detector: detector() } : {}),
      // A whole-sentence re-decode finishes later: its batch.replace goes out then.
      onLateEvents: (events) => report(m.id, hosted, events),
    });
    sessions.set(m.id, hosted);
    // No spare is loaded now: that would stall the audio of this thread's sessions for most of a
    // second (the first words of the session just opened too). The next spare is loaded once this
    // thread hosts no session; the pool sends new sessions to the least busy thread first.
    return;
  }
  const h = sessions.get(m.id);
  if (m.t === 'close') {
    // A proofreading under way still hands in its batch.replace before the session is gone.
    void (h ? h.segmenter.proofreadingDone() : Promise.resolve()).finally(() => {
      if (h) drop(m.id, h);
      post({ t: 'closed', id: m.id });
      if (sessions.size === 0) prepareWhenIdle();
    });
    return;
  }
  if (!h) return; // failed earlier: the service already knows
  if (m.t === 'audio') {
    // The test delay counts as decoding time: it stands for a decoder starved of CPU.
    const t0 = performance.now();
    if (delayCell) Atomics.wait(delayCell, 0, 0, DELAY_MS);
    const events = h.segmenter.push(Buffer.from(m.pcm));
    h.decoded += m.pcm.byteLength;
    report(m.id, h, events, undefined, performance.now() - t0);
    if (CRASH_AFTER_MS && (h.decoded / 2 / h.config.sample_rate) * 1000 >= CRASH_AFTER_MS) {
      setImmediate(() => {
        throw new Error('decoder crash requested by DICTEE_TEST_DECODER_CRASH_AFTER_MS');
      });
    }
    return;
  }
  // The answer to a flush comes after the proofreading it started (a stop's `stopped` follows it).
  const t0 = performance.now();
  const flushed = h.segmenter.flush({ proofread: m.proofread });
  report(m.id, h, flushed, undefined, performance.now() - t0);
  const req = m.req;
  void h.segmenter.proofreadingDone().finally(() => report(m.id, h, [], req));
}

/**
 * The niceness of the proofreading threads (`DICTEE_PROOFREAD_NICENESS`, 0–19, default 5). A whole-sentence
 * decode takes a core for a quarter of the sentence's duration, right when the next sentence starts: at
 * the decoders' priority it took their CPU and held back the live text (measured: benchmarks.md,
 * reliability.md). Lower, the first pass wins the CPU and the `batch.replace` comes later; a
 * proofreading still has 10 s plus twice its sentence's duration before the first pass stands.
 */
const PROOFREAD_NICENESS = niceness(process.env.DICTEE_PROOFREAD_NICENESS, 5);

function niceness(value: string | undefined, fallback: number): number {
  return value !== undefined && /^\d+$/.test(value) && Number(value) <= 19 ? Number(value) : fallback;
}

/*
 * Decoder threads run at the same priority as the event loop. At a lower one (they used to run at
 * niceness 5), any ordinary process on a shared machine starved them: the audio of a session waited
 * undecoded and a stop lost its last sentence. The event loop stays responsive because decoding never
 * runs on it, not because decoders wait.
 */

/** A decoder worker's proofreading thread: whole sentences, one at a time. */
function proofreading(spec: WorkerEngine): void {
  let decodeNow: (
    pcm: Int16Array,
    hotwords?: string,
    details?: boolean,
    model?: string,
  ) => { hyp: string; details?: UtteranceDetails; tokens?: TokenTimes };
  if (spec.engine === 'pocketsphinx') {
    try {
      // This thread only (on Linux the nice value is per thread): see PROOFREAD_NICENESS.
      setPriority(0, PROOFREAD_NICENESS);
    } catch {
      /* not permitted here: it runs at the decoders' priority */
    }
    const ps = loadPocketsphinx();
    const models = spec.models;
    const proofreaders = new Map<string, Proofreader>();
    const proofreader = (key: string): Proofreader => {
      let p = proofreaders.get(key);
      if (!p) {
        const m = models.find((x) => x.key === key);
        if (!m) throw new Error(`no pocketsphinx model ${key}`);
        p = new Proofreader(ps, m);
        proofreaders.set(key, p);
      }
      return p;
    };
    // Each language's general model loaded now (this thread's time, not the decoders'); domain models when first used.
    for (const m of models) if (m.specialty === 'general') proofreader(m.key);
    decodeNow = (pcm, _hotwords, details, model) => {
      const p = proofreader(model ?? modelKey(models, 'en', 'general') ?? models[0]!.key);
      return details ? p.decodeDetailedNow(pcm) : { hyp: p.decodeNow(pcm) };
    };
  } else if (spec.engine === 'sherpa-onnx') {
    decodeNow = sherpaProofreader(spec);
  } else {
    throw new Error(`no proofreading thread for the ${spec.engine} engine`);
  }
  parentPort!.on('message', (m: ProofreadJob) => {
    const late = tooLate(m, Date.now());
    if (late) {
      parentPort!.postMessage(late);
      return;
    }
    let answer: ProofreadAnswer;
    try {
      answer = { job: m.job, ...decodeNow(new Int16Array(m.pcm), m.hotwords, m.details, m.model) };
    } catch (e) {
      answer = { job: m.job, error: errorMessage(e) };
    }
    parentPort!.postMessage(answer);
  });
}

const spec = workerData as WorkerEngine;
if (spec.role === 'proofreader') {
  proofreading(spec);
} else {
  startDecoderWorker();
}

function startDecoderWorker(): void {
  try {
    if (spec.sileroModel !== undefined) detector = sileroDetector(spec.sileroModel);
    engine = factory(spec);
    // A model that cannot load fails the service's start, not a session.
    engine.prepare();
    post({ t: 'ready' });
  } catch (e) {
    post({ t: 'fatal', message: errorMessage(e) });
  }

  parentPort!.on('message', (m: ToWorker) => {
    inbox.push(m);
    if (inbox.length === 1) setImmediate(handleNext);
  });
}

/*
 * Messages wait in this queue and are handled one per turn of the event loop. Node hands a port's
 * messages over in one go (all those waiting, at least 1000) before it runs a timer or reads another
 * port: behind real time, with audio arriving faster than it is decoded, that went on for as long as
 * the backlog lasted, and meanwhile the proofreading thread's answers waited unread and the progress
 * of a session waiting only for its proofreading went unreported, so that its stop was taken for a
 * stalled decoder (INTERNAL_ERROR, no batch.replace) and finished proofreadings for lapsed ones.
 */
const inbox: ToWorker[] = [];

function handleNext(): void {
  const m = inbox[0]!;
  try {
    handle(m);
  } catch (e) {
    const h = sessions.get(m.id);
    if (h) drop(m.id, h);
    post({ t: 'failed', id: m.id, message: errorMessage(e) });
  } finally {
    inbox.shift();
    if (inbox.length) setImmediate(handleNext);
  }
}
