/**
 * "Read Last Dictated Sentence" reads the last dictated text as it stands in the document: after the
 * grammar's formatting, the service's proofreading (`batch.replace`) and anyone's edits of it. While a
 * run writes, LastChunk follows which of its tracked chunks was written last; LastDictatedRange keeps
 * that range in the document from then on, after the run too, moving it with every change. Pure (no
 * `vscode`), tested in plain Node. The text is never logged.
 */
import { RangeTracker, type TextChange } from '../../client/ranges';
import type { L10n } from '../l10nText';

/** The tracked ranges of a run, as LastChunk reads them. */
interface ChunkRanges {
  get(id: string): { readonly start: number; readonly end: number } | undefined;
  has(id: string): boolean;
}

/** Which chunk of a run was the last one written with text. */
export class LastChunk {
  private lastId: string | undefined;
  /** Chunks committed after the last one, whose text may not be written yet (held back, or a command). */
  private pending: string[] = [];

  /** Chunk `id` was committed by the service. */
  committed(id: string): void {
    this.pending.push(id);
  }

  /**
   * Chunks `targetIds` were rewritten as chunk `id` (proofreading, or kept together when a person
   * edited one of them): where the rewrite took their place, the last chunk is `id`.
   */
  replaced(targetIds: readonly string[], id: string, ranges: ChunkRanges): void {
    if (!ranges.has(id)) return;
    const gone = (c: string): boolean => targetIds.includes(c) && !ranges.has(c);
    if (this.lastId !== undefined && gone(this.lastId)) this.lastId = id;
    this.pending = [...new Set(this.pending.map((c) => (gone(c) ? id : c)))];
  }

  /** The range of the last chunk written with text (a chunk emptied since is still the last one), if any. */
  range(ranges: ChunkRanges): { start: number; end: number } | undefined {
    for (let i = this.pending.length - 1; i >= 0; i--) {
      const r = ranges.get(this.pending[i]!);
      if (r && r.end > r.start) {
        this.lastId = this.pending[i];
        this.pending = this.pending.slice(i + 1);
        break;
      }
    }
    const r = this.lastId === undefined ? undefined : ranges.get(this.lastId);
    return r ? { start: r.start, end: r.end } : undefined;
  }
}

/** What "Read Last Dictated Sentence" finds. */
type LastReading = { kind: 'none' } | { kind: 'deleted' } | { kind: 'closed' } | { kind: 'text'; text: string };

const LAST = 'last';

/** The range of the last dictated text in its document, moved with every change of that document. */
export class LastDictatedRange {
  private doc: string | undefined;
  private tracker: RangeTracker | undefined;
  private closedFlag = false;

  /** The last dictated text is `[start, end)` of document `doc` (its URI) as it is now. */
  set(doc: string, start: number, end: number): void {
    this.doc = doc;
    this.closedFlag = false;
    this.tracker = new RangeTracker(0);
    this.tracker.track(LAST, start, end - start);
  }

  /** Document `doc` changed (the changes of one event, in the editor's order). */
  changed(doc: string, changes: readonly TextChange[]): void {
    if (doc !== this.doc || !this.tracker) return;
    this.tracker.applyChanges(changes);
  }

  /** Document `doc` was closed for good: the range no longer says anything (it may change unseen). */
  closed(doc: string): void {
    if (doc === this.doc) this.closedFlag = true;
  }

  /** The text now; `textOf` reads a range of an open document, undefined when it is not open. */
  read(textOf: (doc: string, start: number, end: number) => string | undefined): LastReading {
    const r = this.tracker?.get(LAST);
    if (this.doc === undefined || !r) return { kind: 'none' };
    if (this.closedFlag) return { kind: 'closed' };
    const text = textOf(this.doc, r.start, r.end);
    if (text === undefined) return { kind: 'closed' };
    const t = text.trim();
    return t === '' ? { kind: 'deleted' } : { kind: 'text', text: t };
  }
}

/** What the command says for `reading`: the text itself, or why there is none. */
export function lastReadingText(l10n: L10n, reading: LastReading): string {
  switch (reading.kind) {
    case 'none':
      return l10n.t('Dictée: nothing has been dictated yet in this window.');
    case 'deleted':
      return l10n.t('Dictée: the last dictated sentence was deleted from the document.');
    case 'closed':
      return l10n.t('Dictée: the document of the last dictated sentence was closed.');
    case 'text':
      return reading.text;
  }
}
