/**
 * The proofreading pass of a decoder worker in a thread of its own: a whole-sentence decode blocks for
 * about a third of the sentence's duration, which would hold back every other session of the worker.
 * The worker starts this thread (the same entry, engine-worker.js, with `role: 'proofreader'`) at the
 * first sentence, sends it each sentence's audio (transferred) and gets the hypothesis back. A thread
 * that dies or does not answer in time fails its jobs (the segmenter then keeps the first pass) and
 * is started again at the next sentence.
 */
import { Worker } from 'node:worker_threads';
import type { WorkerEngine } from '../workerProtocol';
import type { DetailedHypothesis, SentenceDecoder } from './recognizer';
import type { UtteranceDetails } from './ffi';
import type { TokenTimes } from '../sherpa/tokens';

export interface ProofreadJob {
  job: number;
  pcm: ArrayBuffer;
  /** The session's keyterms as hotwords (sherpa-onnx). */
  hotwords?: string;
  /** The word times, confidences and alternatives too (a decoder that has them). */
  details?: boolean;
  /** pocketsphinx: which model decodes it (modelSet.ts `key`). */
  model?: string;
}
export type ProofreadAnswer =
  { job: number; hyp: string; details?: UtteranceDetails; tokens?: TokenTimes } | { job: number; error: string };

/** Beyond twice the sentence's duration, a job gets this long before it fails. */
const JOB_GRACE_MS = 10_000;

export class ThreadProofreader implements SentenceDecoder {
  private worker: Worker | undefined;
  private nextJob = 1;
  private readonly jobs = new Map<number, { resolve: (answer: DetailedHypothesis) => void; reject: (e: Error) => void }>();

  constructor(
    private readonly script: string,
    private readonly spec: WorkerEngine,
  ) {}

  decode(samples: Int16Array, onProgress?: () => void, hotwords?: string): Promise<string> {
    return this.ask(samples, onProgress, hotwords, false).then((a) => a.hyp);
  }

  decodeDetailed(samples: Int16Array, onProgress?: () => void, hotwords?: string): Promise<DetailedHypothesis> {
    return this.ask(samples, onProgress, hotwords, true);
  }

  /** This thread, decoding with one of its models (`sampleRate`: the rate of the audio it is given). */
  forModel(model: string, sampleRate: number): SentenceDecoder {
    return {
      decode: (samples, onProgress, hotwords) => this.ask(samples, onProgress, hotwords, false, model, sampleRate).then((a) => a.hyp),
      decodeDetailed: (samples, onProgress, hotwords) => this.ask(samples, onProgress, hotwords, true, model, sampleRate),
      dispose: () => undefined,
    };
  }

  private ask(
    samples: Int16Array,
    onProgress: (() => void) | undefined,
    hotwords: string | undefined,
    details: boolean,
    model?: string,
    sampleRate = 16000,
  ): Promise<DetailedHypothesis> {
    const w = this.thread();
    const job = this.nextJob++;
    const pcm = new ArrayBuffer(samples.byteLength);
    new Int16Array(pcm).set(samples);
    const limitMs = JOB_GRACE_MS + (2 * samples.length * 1000) / sampleRate;
    return new Promise<DetailedHypothesis>((resolve, reject) => {
      const started = Date.now();
      const beat = setInterval(() => {
        if (Date.now() - started > limitMs) {
          this.jobs.delete(job);
          reject(new Error(`proofreading gave no answer within ${Math.round(limitMs)} ms`));
        } else onProgress?.();
      }, 1000);
      const done = (): void => clearInterval(beat);
      this.jobs.set(job, {
        resolve: (answer) => {
          done();
          resolve(answer);
        },
        reject: (e) => {
          done();
          reject(e);
        },
      });
      const job_: ProofreadJob = {
        job,
        pcm,
        ...(hotwords !== undefined ? { hotwords } : {}),
        ...(details ? { details } : {}),
        ...(model !== undefined ? { model } : {}),
      };
      w.postMessage(job_, [pcm]);
    });
  }

  /** Starts the thread now (it loads its model), so that the first sentence does not wait for it. */
  warm(): void {
    this.thread();
  }

  dispose(): void {
    void this.worker?.terminate();
    this.worker = undefined;
  }

  private thread(): Worker {
    if (this.worker) return this.worker;
    const w = new Worker(this.script, { workerData: { ...this.spec, role: 'proofreader' } });
    w.on('message', (m: ProofreadAnswer) => {
      const j = this.jobs.get(m.job);
      this.jobs.delete(m.job);
      if (!j) return;
      if ('hyp' in m) j.resolve({ hyp: m.hyp, ...(m.details ? { details: m.details } : {}), ...(m.tokens ? { tokens: m.tokens } : {}) });
      else j.reject(new Error(m.error));
    });
    const lost = (why: string): void => {
      if (this.worker === w) this.worker = undefined;
      for (const j of this.jobs.values()) j.reject(new Error(why));
      this.jobs.clear();
    };
    w.on('error', (e) => lost(`the proofreading thread failed: ${e.message}`));
    w.on('exit', (code) => lost(`the proofreading thread exited (code ${code})`));
    this.worker = w;
    return w;
  }
}
