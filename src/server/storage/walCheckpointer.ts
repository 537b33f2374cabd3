/**
 * Checkpoints the SQLite write-ahead log from a thread of its own, so the event loop never does it.
 *
 * In WAL mode a commit appends to the `-wal` file; a checkpoint copies the log back into the database
 * and, with synchronous=NORMAL, is where SQLite waits for the disk (fsync). SQLite's automatic checkpoint
 * runs inside whichever commit crosses 1000 pages: with a final persisted before it is sent, that one
 * commit held the event loop for up to 190 ms on a busy disk (every live session's audio waited), and the
 * checkpoints were two thirds of the CPU time of persisting. The service's connection turns the automatic
 * checkpoint off and this thread, with its own connection, runs a PASSIVE checkpoint (it never waits for
 * the writer, nor the writer for it) every `everyMs`. What a commit makes durable does not change: the
 * commit is in the log before the event is sent, as before.
 */
import { Worker } from 'node:worker_threads';

const CHECKPOINT_EVERY_MS = 1000;

/** Runs in the thread: its own connection, a PASSIVE checkpoint every `everyMs`, a last one on `close`. */
const THREAD = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.module);
const db = new Database(workerData.file, { fileMustExist: true });
let failed = false;
const checkpoint = (mode) => {
  try {
    const [r] = db.pragma('wal_checkpoint(' + mode + ')');
    failed = false;
    return r;
  } catch (e) {
    // Nothing is lost: every commit stays in the log until a checkpoint succeeds (disk full: later).
    if (!failed) parentPort.postMessage({ t: 'error', message: String(e && e.message || e) });
    failed = true;
    return undefined;
  }
};
const timer = setInterval(() => checkpoint('PASSIVE'), workerData.everyMs);
parentPort.on('message', (m) => {
  if (m.t === 'now') return parentPort.postMessage({ t: 'done', req: m.req, result: checkpoint('PASSIVE') });
  if (m.t !== 'close') return;
  clearInterval(timer);
  checkpoint('PASSIVE');
  db.close();
  parentPort.close();
});
`;

/** What `wal_checkpoint` answers: log frames in the WAL, and how many are copied into the database. */
interface CheckpointResult {
  busy: number;
  log: number;
  checkpointed: number;
}

export class WalCheckpointer {
  private readonly worker: Worker;
  private readonly exited: Promise<void>;
  private nextReq = 1;
  private readonly waiting = new Map<number, (r: CheckpointResult | undefined) => void>();

  /** `file`: the database, already in WAL mode. `onError`: a checkpoint failed (said once per run of failures). */
  constructor(file: string, onError?: (message: string) => void, everyMs = CHECKPOINT_EVERY_MS) {
    this.worker = new Worker(THREAD, { eval: true, workerData: { module: require.resolve('better-sqlite3'), file, everyMs } });
    this.worker.on('message', (m: { t: 'error'; message: string } | { t: 'done'; req: number; result?: CheckpointResult }) => {
      if (m.t === 'error') onError?.(m.message);
      else {
        this.waiting.get(m.req)?.(m.result);
        this.waiting.delete(m.req);
        if (this.waiting.size === 0) this.worker.unref();
      }
    });
    this.worker.on('error', (e) => onError?.(e.message));
    this.worker.unref(); // never keeps a process alive (after the listeners: adding one refs it again)
    this.exited = new Promise((resolve) => this.worker.once('exit', () => resolve()));
  }

  /** A checkpoint now (tests); undefined if it failed. */
  checkpointNow(): Promise<CheckpointResult | undefined> {
    const req = this.nextReq++;
    return new Promise((resolve) => {
      this.waiting.set(req, resolve);
      this.worker.ref(); // an answer awaited keeps the process alive until it comes
      this.worker.postMessage({ t: 'now', req });
    });
  }

  /** A last checkpoint, then the thread's connection is closed and the thread ends. */
  close(): Promise<void> {
    this.worker.postMessage({ t: 'close' });
    return this.exited;
  }
}
