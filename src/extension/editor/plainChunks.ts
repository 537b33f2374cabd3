/**
 * Committed chunks written as the service sent them (the dictation grammar off): spaced against the
 * characters around them (client/format.ts), one undo step per utterance (utteranceSteps.ts: the chunks of
 * a sentence and its rewrite), a `batch.replace` rewriting exactly the tracked text unless a person edited it.
 */
import { joinText } from '../../client/format';
import type { OwnEffect } from '../../client/ranges';
import type { TranscriptOp } from '../../client/transcript';
import type { Logger } from '../../shared/logger';
import type { UndoStops } from './documentPort';
import type { PlannedChange, TrackedDocument } from './trackedDocument';
import { UtteranceSteps } from './utteranceSteps';
import type { ChunkWriter, WriterStats } from './writerTypes';

/** The selection the run started with: replaced by the first dictated text unless the user edits it. */
const SELECTION_ID = '\u0000selection';

export class PlainChunks implements ChunkWriter {
  private provisionalText: { text: string; afterId: string | null } = { text: '', afterId: null };
  /** The undo steps of the run's utterances. */
  private readonly steps: UtteranceSteps;

  constructor(
    private readonly target: TrackedDocument,
    selectionLength: number,
    private readonly log: Logger,
    private readonly stats: WriterStats,
  ) {
    if (selectionLength > 0) target.tracker.track(SELECTION_ID, target.tracker.anchor, selectionLength);
    this.steps = new UtteranceSteps(target);
  }

  provisional(text: string, afterId: string | null): void {
    this.provisionalText = { text, afterId };
    this.steps.provisional(text);
    this.renderProvisional();
  }

  renderProvisional(): void {
    if (!this.target.usable) return;
    const { text, afterId } = this.provisionalText;
    if (text === '') {
      this.target.port.clearProvisional();
      return;
    }
    const tracker = this.target.tracker;
    const after = afterId === null ? undefined : tracker.get(afterId);
    const offset = after ? after.end : afterId === null ? tracker.anchor : tracker.end();
    this.target.port.showProvisional(offset, joinText(this.target.text(offset - 2, offset), text, ''));
  }

  /** `joinText` spacing from the real neighbours, newlines in the document's own EOL. */
  private spaced(start: number, end: number, text: string): string {
    const joined = joinText(this.target.text(start - 2, start), text, this.target.text(end, end + 2));
    return joined.replace(/\r\n|\r|\n/g, this.target.eol);
  }

  async insert(op: Extract<TranscriptOp, { kind: 'insert' }>): Promise<void> {
    if (await this.write(op, this.steps.finalStops())) this.steps.finalWritten(op.id);
  }

  /** Writes a chunk's text where it goes; whether the document took text of it. */
  private async write(op: Extract<TranscriptOp, { kind: 'insert' }>, stops: UndoStops): Promise<boolean> {
    const { id, text, prevId, nextId } = op;
    const tracker = this.target.tracker;
    let written = '';
    let at = 0;
    let replacing = false;
    const ok = await this.target.applyWithRetry(
      () => {
        let offset = tracker.insertionOffset(prevId, nextId);
        let deleted = 0;
        const sel = tracker.get(SELECTION_ID);
        if (sel && sel.edited) {
          this.log.info('the selection the run started with was edited: it is kept');
          tracker.untrack(SELECTION_ID);
        } else if (sel && prevId === null) {
          offset = sel.start;
          deleted = sel.end - sel.start;
        }
        const s = this.spaced(offset, offset + deleted, text);
        if (s === '' && deleted === 0) {
          tracker.track(id, offset, 0);
          return null;
        }
        [written, at, replacing] = [s, offset, deleted > 0];
        const effect: OwnEffect =
          deleted > 0
            ? { kind: 'replace', id, removeIds: [SELECTION_ID], offset, length: s.length }
            : { kind: 'insert', id, offset, length: s.length };
        return { changes: [{ offset, deletedLength: deleted, text: s }], effect };
      },
      stops,
      `insert of chunk ${id}`,
    );
    if (!ok) {
      this.stats.failed++;
      this.log.error(`could not write chunk ${id} into the document; its text is kept for the end of the run`);
      return false;
    }
    if (written === '') return false;
    this.stats.commits++;
    this.log.info(`committed chunk ${id} (${written.length} characters at offset ${at}${replacing ? ', replacing the selection' : ''})`);
    return true;
  }

  async replace(op: Extract<TranscriptOp, { kind: 'replace' }>): Promise<boolean> {
    const tracker = this.target.tracker;
    const known = op.targetIds.filter((t) => tracker.has(t));
    if (known.length === 0) {
      const chunk = { kind: 'insert', id: op.id, text: op.text, prevId: op.prevId, nextId: op.nextId } as const;
      if (op.text.trim() !== '' && (await this.write(chunk, this.steps.stops(...op.targetIds)))) this.steps.opened(op.id);
      return true;
    }
    let conflict = false;
    let rewritten: { length: number; offset: number } | null = null;
    const ok = await this.target.applyWithRetry(
      () => {
        const edited = known.filter((t) => tracker.get(t)?.edited);
        if (edited.length > 0) {
          // A person changed the text (before or while we were retrying): their text wins.
          conflict = true;
          this.stats.conflicts++;
          this.log.warn(
            `conflict: batch.replace of ${known.join(', ')} by chunk ${op.id} not applied: the text of ${edited.join(', ')} was edited in the document; the edited text is kept`,
          );
          tracker.merge(known, op.id);
          return null;
        }
        const targets = known.map((t) => tracker.get(t)!).sort((a, b) => a.start - b.start);
        const first = targets[0]!;
        const last = targets[targets.length - 1]!;
        const contiguous = targets.every((t, i) => i === 0 || targets[i - 1]!.end === t.start);
        let changes: PlannedChange[];
        let s: string;
        if (contiguous) {
          s = this.spaced(first.start, last.end, op.text);
          if (this.target.text(first.start, last.end) === s) {
            // Same text: nothing to rewrite, the new chunk takes over the range.
            for (const t of known) tracker.untrack(t);
            tracker.track(op.id, first.start, s.length);
            return null;
          }
          changes = [{ offset: first.start, deletedLength: last.end - first.start, text: s }];
        } else {
          // Text typed between the targets stays: rewrite the first, delete the others.
          s = this.spaced(first.start, first.end, op.text);
          changes = targets.map((t, i) => ({ offset: t.start, deletedLength: t.end - t.start, text: i === 0 ? s : '' })).reverse();
        }
        rewritten = { length: s.length, offset: first.start };
        return { changes, effect: { kind: 'replace', id: op.id, removeIds: known, offset: first.start, length: s.length } };
      },
      this.steps.stops(...known),
      `replace by chunk ${op.id}`,
    );
    if (!ok) {
      this.stats.failed++;
      this.log.error(`could not rewrite chunks ${known.join(', ')} in the document; the earlier text is left as it is`);
      return false;
    }
    if (conflict) return false;
    // The same text: the new chunk took the range over.
    if (!rewritten) return true;
    const r: { length: number; offset: number } = rewritten;
    this.steps.opened(op.id);
    this.stats.replaces++;
    this.log.info(`replaced chunks ${known.join(', ')} by chunk ${op.id} (${r.length} characters at offset ${r.offset})`);
    return true;
  }

  async finish(): Promise<void> {}

  dispose(): void {
    this.steps.dispose();
  }
}
