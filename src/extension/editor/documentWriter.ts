/**
 * The writer of one run: the transcript model's operations applied to the run's target document
 * through one queue of edits (the grammar's writer or the plain one), and the provisional text shown
 * beside them.
 */
import type { TranscriptOp } from '../../client/transcript';
import { errorMessage } from '../../shared/errors';
import type { Logger } from '../../shared/logger';
import { DictatedChunks, type DictationSetup } from './dictatedChunks';
import { Emitter, type Disposable, type DocumentPort, type Event } from './documentPort';
import { LastChunk } from './lastDictated';
import { PlainChunks } from './plainChunks';
import { TrackedDocument } from './trackedDocument';
import type { ChunkWriter, WriterStats } from './writerTypes';

/**
 * Applies the transcript model's operations to the run's target document: committed chunks as real
 * edits, `batch.replace` as a rewrite of exactly the tracked text, provisional text as a decoration.
 * With the dictation grammar on, chunks go through it (dictatedChunks.ts: spoken punctuation, commands,
 * templates); otherwise they are written as the service sent them (plainChunks.ts). Edits go through
 * one queue (never two in flight) and go to the document, not to whichever editor is active. Text a
 * person edited is never rewritten.
 */
/** What a {@link DocumentWriter.write} did not do. */
export interface WriteOutcome {
  /** The ids of the `replace` operations whose rewrite the document did not take. */
  readonly refused: ReadonlySet<string>;
}

export class DocumentWriter implements Disposable {
  private readonly target: TrackedDocument;
  private readonly chunks: ChunkWriter;
  /** The dictation grammar's writer, when the grammar is on (the commands of fields and templates use it). */
  readonly dictation: DictatedChunks | undefined;
  private queue: Promise<void> = Promise.resolve();
  private disposed = false;
  private readonly listeners: Disposable[] = [];
  readonly stats: WriterStats = { commits: 0, replaces: 0, conflicts: 0, failed: 0 };
  /** Fires once when the target document is closed: the run must stop, its text goes elsewhere. */
  readonly onDidCloseTarget: Event<void>;
  private readonly last = new LastChunk();
  private readonly lastEmitter = new Emitter<{ start: number; end: number }>();
  /** After each edit of the run: where the last chunk written with text stands now (never its text). */
  readonly onDidWriteLast = this.lastEmitter.event;

  constructor(
    private readonly port: DocumentPort,
    anchor: number,
    selectionLength: number,
    private readonly log: Logger,
    grammar?: DictationSetup,
  ) {
    this.target = new TrackedDocument(port, anchor, log);
    if (grammar) {
      this.dictation = new DictatedChunks(this.target, selectionLength, log, this.stats, grammar, (task) => this.enqueue(task));
      this.chunks = this.dictation;
    } else {
      this.chunks = new PlainChunks(this.target, selectionLength, log, this.stats);
    }
    this.onDidCloseTarget = this.target.onDidClose;
    this.listeners.push(this.target.onDidUserEdit(() => this.chunks.renderProvisional()));
  }

  /** Whether the target document was closed. */
  get closed(): boolean {
    return this.target.closed;
  }

  /**
   * Queues operations; resolves when they are applied, with the `replace` operations whose rewrite the
   * document did not take (its text left as it was: edited, a command among them, apart). Never rejects.
   */
  write(ops: readonly TranscriptOp[]): Promise<WriteOutcome> {
    const refused = new Set<string>();
    const outcome: WriteOutcome = { refused };
    if (ops.length === 0) return this.queue.then(() => outcome);
    return this.enqueue(async () => {
      for (const op of ops) {
        if (!this.target.usable || this.disposed) return;
        try {
          if (op.kind === 'insert') {
            this.last.committed(op.id);
            await this.chunks.insert(op);
          } else if (op.kind === 'replace') {
            if (!(await this.chunks.replace(op))) refused.add(op.id);
            this.last.replaced(op.targetIds, op.id, this.target.tracker);
          } else this.chunks.provisional(op.text, op.afterId);
        } catch (e) {
          this.stats.failed++;
          this.log.error(`could not apply ${op.kind}: ${errorMessage(e)}`);
          if (op.kind === 'replace') refused.add(op.id);
        }
      }
    }).then(() => outcome);
  }

  /** Runs `task` after everything queued before it, before anything queued after it. Never rejects. */
  enqueue(task: () => Promise<void>): Promise<void> {
    const run = async (): Promise<void> => {
      if (this.disposed) return;
      try {
        await task();
      } catch (e) {
        this.stats.failed++;
        this.log.error(`could not apply an edit: ${errorMessage(e)}`);
      }
      const last = this.last.range(this.target.tracker);
      if (last && this.target.usable) this.lastEmitter.fire(last);
    };
    this.queue = this.queue.then(run, run);
    return this.queue;
  }

  /** Resolves when every queued operation is applied. */
  flush(): Promise<void> {
    return this.queue;
  }

  /** The end of the run: what the grammar held back is written, after everything queued. */
  finish(): Promise<void> {
    return this.enqueue(() => this.chunks.finish());
  }

  /** Hides the provisional text. */
  clearProvisional(): void {
    this.chunks.provisional('', null);
    this.port.clearProvisional();
  }

  dispose(): void {
    this.disposed = true;
    for (const l of this.listeners) l.dispose();
    this.lastEmitter.dispose();
    this.chunks.dispose();
    this.target.dispose();
    this.port.clearProvisional();
  }
}
