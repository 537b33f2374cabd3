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
  /**
   * When the job is given up (`Date.now()` ms): a thread that comes to it later answers at once that it was
   * too late, without decoding (its answer would be dropped; the sentences queued after it get the CPU).
   */
  deadline?: number;
}
export type ProofreadAnswer =
  { job: number; hyp: string; details?: UtteranceDetails; tokens?: TokenTimes } | { job: number; error: string };

/** Beyond twice the sentence's duration, a job gets this long before it fails. */
const JOB_GRACE_MS = 10_000;

/**
 * When a job is given up: its own time (the grace and twice its duration) counted from when the thread can
 * start it, at the latest when the job before it was given up (the thread takes its jobs one at a time). A
 * sentence queued behind a slow one is not failed for the time it waited.
 */
export function jobDeadline(now: number, previousDeadline: number, limitMs: number): number {
  return Math.max(now, previousDeadline) + limitMs;
}

/** The answer a thread gives a job it comes to after its deadline, without decoding it. */
export function tooLate(job: ProofreadJob, now: number): ProofreadAnswer | undefined {
  return job.deadline !== undefined && now > job.deadline
    ? { job: job.job, error: `proofreading skipped: its time ran out ${now - job.deadline} ms before the thread came to it` }
    : undefined;
}

export class ThreadProofreader implements SentenceDecoder {
  private worker: Worker | undefined;
  private nextJob = 1;
  /** The deadline of the last job sent (see {@link jobDeadline}). */
  private lastDeadline = 0;
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
    const posted = Date.now();
    const deadline = jobDeadline(posted, this.lastDeadline, limitMs);
    this.lastDeadline = deadline;
    return new Promise<DetailedHypothesis>((resolve, reject) => {
      const beat = setInterval(() => {
        if (Date.now() > deadline) {
          this.jobs.delete(job);
          reject(new Error(`proofreading gave no answer within ${Math.round(deadline - posted)} ms`));
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
        deadline,
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
      if (this.worker === w) {
        this.worker = undefined;
        this.lastDeadline = 0;
      }
      for (const j of this.jobs.values()) j.reject(new Error(why));
      this.jobs.clear();
    };
    w.on('error', (e) => lost(`the proofreading thread failed: ${e.message}`));
    w.on('exit', (code) => lost(`the proofreading thread exited (code ${code})`));
    this.worker = w;
    return w;
  }
}
