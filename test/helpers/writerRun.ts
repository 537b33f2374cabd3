/**
 * One dictation run's writing pipeline in plain Node: the service's messages into the real
 * TranscriptModel, its operations into the real DocumentWriter (plain chunks, or the dictation grammar),
 * which writes into a MemoryDocument. The hold-back timer is fired by hand (`holdElapsed()`).
 */
import { TranscriptModel, type TranscriptModelOptions } from '../../src/client/transcript';
import type { FormatOptions } from '../../src/dictation';
import { DocumentWriter } from '../../src/extension/editor/documentWriter';
import { ENGLISH } from '../../src/extension/l10nText';
import type { BatchReplaceMessage, TranscriptMessage } from '../../src/protocol';
import type { Logger } from '../../src/shared/logger';
import { MemoryDocument, type MemoryDocumentOptions } from './memoryDocument';

export interface WriterRunOptions extends MemoryDocumentOptions {
  /** Where the run starts (default: the end of the text), and the length of the selection it starts with. */
  anchor?: number;
  selectionLength?: number;
  /** The dictation grammar's options; without them, chunks are written as the service sent them. */
  grammar?: FormatOptions;
  /** The transcript model's options (what it ignores). */
  model?: TranscriptModelOptions;
}

export class WriterRun {
  readonly doc: MemoryDocument;
  readonly model: TranscriptModel;
  readonly writer: DocumentWriter;
  /** What the run told the user, whether it asked to stop, and how many templates it inserted. */
  readonly told: string[] = [];
  stops = 0;
  templatesInserted = 0;
  /** Every log line (warnings and errors prefixed). */
  readonly log: string[] = [];
  private readonly timers: Array<{ fn: () => void; live: boolean }> = [];
  private seq = 0;

  constructor(text = '', options: WriterRunOptions = {}) {
    this.doc = new MemoryDocument(text, options);
    this.model = new TranscriptModel(options.model);
    const logger: Logger = {
      trace: (m) => this.log.push(m),
      debug: (m) => this.log.push(m),
      info: (m) => this.log.push(m),
      warn: (m) => this.log.push(`warn: ${m}`),
      error: (m) => this.log.push(`error: ${String(m)}`),
    };
    const grammar = options.grammar && {
      options: options.grammar,
      l10n: ENGLISH,
      ui: {
        stop: () => void this.stops++,
        whatCanISay: () => undefined,
        tell: (m: string) => void this.told.push(m),
        templateInserted: () => void this.templatesInserted++,
      },
      schedule: (fn: () => void) => {
        const timer = { fn, live: true };
        this.timers.push(timer);
        return { dispose: () => void (timer.live = false) };
      },
    };
    this.writer = new DocumentWriter(this.doc, options.anchor ?? text.length, options.selectionLength ?? 0, logger, grammar);
  }

  /** The document as the person sees it. */
  get text(): string {
    return this.doc.value;
  }

  /** A message of the service, through the model into the writer; resolves when it is written. */
  async send(message: TranscriptMessage | BatchReplaceMessage): Promise<void> {
    await this.writer.write(this.model.apply(message));
    await this.doc.settled();
  }

  final(id: string, index: number, text: string): Promise<void> {
    return this.send({ type: 'transcript', status: 'final', text, id, index, seq: ++this.seq });
  }

  streaming(id: string, index: number, text: string): Promise<void> {
    return this.send({ type: 'transcript', status: 'streaming', text, id, index, seq: ++this.seq });
  }

  interim(id: string, index: number, text: string): Promise<void> {
    return this.send({ type: 'transcript', status: 'interim', text, id, index, seq: ++this.seq });
  }

  /** The chunks of a sentence as a speaker with short pauses makes them: each streamed, then closed (`interim`). */
  async speak(chunks: ReadonlyArray<readonly [id: string, index: number, text: string]>): Promise<void> {
    for (const [id, index, text] of chunks) {
      await this.streaming(id, index, text.split(' ')[0]!);
      await this.interim(id, index, text);
    }
  }

  /** The end of a sentence (a long pause): every pending chunk final, oldest first, in one burst. */
  async endSentence(chunks: ReadonlyArray<readonly [id: string, index: number, text: string]>): Promise<void> {
    for (const [id, index, text] of chunks) await this.final(id, index, text);
  }

  /** The service's proofreading: `targets` rewritten as chunk `id`. */
  replace(targets: string[], id: string, index: number, text: string): Promise<void> {
    return this.send({
      type: 'batch.replace',
      data: { target_ids: targets, new_chunk: { id, index, text, status: 'final' } },
      seq: ++this.seq,
    });
  }

  /** The hold-back time passes: the words held back are written. */
  async holdElapsed(): Promise<void> {
    for (const t of this.timers.splice(0)) if (t.live) t.fn();
    await this.idle();
  }

  /** Resolves when every queued edit is applied and seen. */
  async idle(): Promise<void> {
    await this.writer.flush();
    await this.doc.settled();
  }

  /** The end of the run. */
  async finish(): Promise<void> {
    await this.writer.finish();
    await this.doc.settled();
    this.writer.dispose();
  }
}
