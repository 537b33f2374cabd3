/**
 * Committed chunks written through the dictation grammar (src/dictation/): each `insert` and `replace`
 * of the transcript model goes through the run's DictationFormatter with the document around the
 * insertion point; provisional text is shown as it will be written. The run has an insertion point of
 * its own (a tracked range: the cursor it started at, or the template field a command selected, which
 * the next words replace); words held back wait for the next chunk or `HOLD_BACK_MS`. Each utterance is
 * one undo step of the editor (utteranceSteps.ts): the chunks of its sentence, the words held back from
 * them and its rewrite by the service (`batch.replace`) join the step its first chunk opened, unless
 * someone else changed the document in between. The commands said alone are run by dictationActions.ts.
 */
import type { OwnEffect } from '../../client/ranges';
import {
  DictationFormatter,
  HOLD_BACK_MS,
  type ChunkResult,
  type DictationAction,
  type DocContext,
  type FormatOptions,
  type Template,
} from '../../dictation';
import type { Logger } from '../../shared/logger';
import type { L10n } from '../l10nText';
import { DictationActions, type DictationUi } from './dictationActions';
import type { Disposable, OffsetRange, UndoStops } from './documentPort';
import type { TrackedDocument } from './trackedDocument';
import { UtteranceSteps } from './utteranceSteps';
import {
  CURSOR_ID,
  type ChunkWriter,
  type CursorKind,
  type DictationCursor,
  type InsertOp,
  type ReplaceOp,
  type WriterStats,
} from './writerTypes';

/** Characters of context the grammar reads on each side of the insertion point. */
const BEFORE_CHARS = 80;
const AFTER_CHARS = 8;

export interface DictationSetup {
  options: FormatOptions;
  ui: DictationUi;
  /** The words of the messages the commands said alone give (`vscode.l10n` in the extension). */
  l10n: L10n;
  /** The hold-back timer (injected; `setTimeout` by default). */
  schedule?: (fn: () => void, ms: number) => Disposable;
}

function defaultSchedule(fn: () => void, ms: number): Disposable {
  const t = setTimeout(fn, ms);
  return { dispose: () => clearTimeout(t) };
}

/** Line breaks as the grammar reads them. */
function lf(s: string): string {
  return s.replace(/\r\n?/gu, '\n');
}

export class DictatedChunks implements ChunkWriter, DictationCursor {
  readonly formatter: DictationFormatter;
  private readonly actions: DictationActions;
  private cursorKind: CursorKind;
  /** The undo steps of the run's utterances. */
  private readonly steps: UtteranceSteps;
  private hold: Disposable | undefined;
  private rawProvisional = '';
  private readonly schedule: (fn: () => void, ms: number) => Disposable;

  constructor(
    readonly target: TrackedDocument,
    selectionLength: number,
    private readonly log: Logger,
    private readonly stats: WriterStats,
    setup: DictationSetup,
    private readonly enqueue: (task: () => Promise<void>) => Promise<void>,
  ) {
    this.formatter = new DictationFormatter(setup.options);
    this.schedule = setup.schedule ?? defaultSchedule;
    target.tracker.track(CURSOR_ID, target.tracker.anchor, selectionLength);
    this.cursorKind = selectionLength > 0 ? 'selection' : 'point';
    this.actions = new DictationActions(this, setup.ui, setup.l10n, log);
    this.steps = new UtteranceSteps(target);
  }

  /** Templates, vocabulary or language changed (settings, the templates folder): for the next chunks. */
  setOptions(options: Partial<FormatOptions>): void {
    this.formatter.setOptions(options);
  }

  // ------------------------------------------------------------------ the insertion point

  /** The run's insertion point (a range: the selected field or selection the next words replace). */
  cursor(): { start: number; end: number } {
    const c = this.target.tracker.get(CURSOR_ID);
    return c ? { start: c.start, end: c.end } : { start: this.target.tracker.end(), end: this.target.tracker.end() };
  }

  /** Moves the insertion point (and shows it in the editor when it selects something). */
  setCursor(start: number, end: number, kind: CursorKind): void {
    this.target.tracker.track(CURSOR_ID, start, end - start);
    this.cursorKind = kind;
    if (end > start) this.target.port.setSelection({ start, end }, true);
    this.renderProvisional();
  }

  /**
   * Where the next words go: the insertion point, or, when a person changed the selection or field it
   * stood for, next to their text (before the run's first selection, as documented; after a field).
   */
  private place(): { start: number; end: number } {
    const c = this.target.tracker.get(CURSOR_ID);
    if (!c) return this.cursor();
    if (c.end > c.start && c.edited) {
      const at = this.cursorKind === 'selection' ? c.start : c.end;
      this.log.info(`the ${this.cursorKind === 'selection' ? 'selection the run started with' : 'selected field'} was edited: it is kept`);
      this.setCursor(at, at, 'point');
      return { start: at, end: at };
    }
    return { start: c.start, end: c.end };
  }

  /** The document around [start, end) as the grammar reads it; `replaceable`: the run's own unedited chunk just before. */
  context(start: number, end: number): DocContext {
    let replaceable = 0;
    // Read on every chunk and provisional update: the ranges unsorted (all() copies and sorts the run's chunks each time).
    for (const r of this.target.tracker.unordered()) {
      // Not the ranges of the run's own (the insertion point, a template on its way): `\u0000…`.
      if (!r.id.startsWith('\u0000') && r.end === start && r.end > r.start && !r.edited)
        replaceable = Math.max(replaceable, r.end - r.start);
    }
    return { before: lf(this.target.text(start - BEFORE_CHARS, start)), after: lf(this.target.text(end, end + AFTER_CHARS)), replaceable };
  }

  /** A new undo step unless the last edit of ours belongs to `ids` and nobody changed the document since. */
  stops(...ids: string[]): UndoStops {
    return this.steps.stops(...ids);
  }

  /** Notes that the undo step of `id` is the open one. */
  opened(id: string): void {
    this.steps.opened(id);
  }

  // ------------------------------------------------------------------ chunks

  async insert(op: InsertOp): Promise<void> {
    this.cancelHold();
    const tracker = this.target.tracker;
    const between = op.nextId !== null && tracker.has(op.nextId);
    // Between two chunks of the run (a late final): found again at each attempt of the edit.
    const point = (): OffsetRange => {
      const at = tracker.insertionOffset(op.prevId, op.nextId);
      return { start: at, end: at };
    };
    const where = between ? point() : this.place();
    const r = this.formatter.commit(op.id, op.text, this.context(where.start, where.end));
    const written = await this.write(r, between ? point : null, this.steps.finalStops());
    if (r.actions.length > 0) this.steps.commandRun();
    else if (written && r.text !== '') this.steps.finalWritten(r.id);
    await this.afterResult(r);
  }

  async replace(op: ReplaceOp): Promise<boolean> {
    this.cancelHold();
    const tracker = this.target.tracker;
    const known = op.targetIds.filter((t) => tracker.has(t)).map((t) => tracker.get(t)!);
    known.sort((a, b) => a.start - b.start);
    const edited = known.filter((t) => t.edited);
    if (edited.length > 0) {
      this.stats.conflicts++;
      this.log.warn(
        `conflict: batch.replace of ${op.targetIds.join(', ')} by chunk ${op.id} not applied: the text of ${edited.map((t) => t.id).join(', ')} was edited in the document; the edited text is kept`,
      );
      return false;
    }
    const first = known[0];
    const last = known[known.length - 1];
    const range = first && last ? { start: first.start, end: last.end } : this.place();
    if (this.formatter.touchesSpent(op.targetIds)) {
      // The rewrite would bring back what "scratch that" deleted, or write a command's words: the
      // formatter notes it (a rewrite of only commands is a command too), and the document stays.
      this.formatter.replace(op.targetIds, op.id, op.text, this.context(range.start, range.end));
      this.log.info(
        `batch.replace of ${op.targetIds.join(', ')} by chunk ${op.id}: a command said alone, or text a command deleted, is among them; the document is left as it is`,
      );
      return false;
    }
    if (known.some((t, i) => i > 0 && known[i - 1]!.end !== t.start)) {
      this.log.info(
        `batch.replace of ${op.targetIds.join(', ')} by chunk ${op.id} not applied: its chunks are apart in the document (a field between them); their text is kept`,
      );
      return false;
    }
    const r = this.formatter.replace(op.targetIds, op.id, op.text, this.context(range.start, range.end));
    if (!r) {
      this.log.info(
        `batch.replace of ${op.targetIds.join(', ')} by chunk ${op.id}: a command said alone is among them; the document is left as it is`,
      );
      return false;
    }
    const ids = known.map((t) => t.id);
    const text = r.text.replace(/\n/gu, this.target.eol);
    const current = this.target.text(range.start - (r.deleteBefore ?? 0), range.end);
    if (known.length > 0 && current === text) {
      // Same text: the new chunk takes over the range.
      for (const id of ids) tracker.untrack(id);
      tracker.track(op.id, range.start, range.end - range.start);
    } else {
      const stops = this.stops(...ids);
      let conflict = false;
      const ok = await this.target.applyWithRetry(
        () => {
          const ts = ids.map((id) => tracker.get(id)).filter((t) => t !== undefined);
          // A person changed the text while the edit was on its way (it was refused): their text wins.
          conflict = ts.some((t) => t.edited);
          if (conflict) return null;
          const start = ts.length ? Math.min(...ts.map((t) => t.start)) : this.place().start;
          const end = ts.length ? Math.max(...ts.map((t) => t.end)) : start;
          const from = start - (r.deleteBefore ?? 0);
          const effect: OwnEffect = { kind: 'replace', id: op.id, removeIds: ids, offset: from, length: text.length };
          return { changes: [{ offset: from, deletedLength: end - from, text }], effect };
        },
        stops,
        `replace by chunk ${op.id}`,
      );
      if (!ok) {
        this.stats.failed++;
        this.log.error(`could not rewrite chunks ${ids.join(', ')} in the document; the earlier text is left as it is`);
        return false;
      }
      if (conflict) {
        this.stats.conflicts++;
        this.log.warn(
          `conflict: batch.replace of ${ids.join(', ')} by chunk ${op.id} not applied: the text was edited in the document meanwhile; the edited text is kept`,
        );
        await this.afterResult(r);
        return false;
      }
      this.opened(op.id);
      this.stats.replaces++;
      this.log.info(
        `replaced chunks ${ids.join(', ')} by chunk ${op.id} (${text.length} characters at offset ${range.start - (r.deleteBefore ?? 0)})`,
      );
    }
    await this.afterResult(r);
    return true;
  }

  provisional(text: string): void {
    this.rawProvisional = text;
    this.steps.provisional(text);
    this.renderProvisional();
  }

  renderProvisional(): void {
    if (!this.target.usable) return;
    const c = this.cursor();
    const shown =
      this.rawProvisional === '' && !this.formatter.held
        ? ''
        : this.formatter.provisional(this.rawProvisional, this.context(c.start, c.end));
    if (shown.trim() === '') this.target.port.clearProvisional();
    else this.target.port.showProvisional(c.start, shown);
  }

  /** The end of the run: the words held back are written. */
  async finish(): Promise<void> {
    this.cancelHold();
    await this.flushHeld();
  }

  /**
   * Writes a result's text where it goes (`at()`, or the insertion point, which then follows the text),
   * owned by its chunk: a chunk that already has text right there is extended.
   */
  private async write(r: ChunkResult, at: (() => OffsetRange) | null, stops: UndoStops): Promise<boolean> {
    const tracker = this.target.tracker;
    const text = r.text.replace(/\n/gu, this.target.eol);
    if (text === '') {
      if (!tracker.has(r.id)) {
        const p = at ? at() : this.cursor();
        tracker.track(r.id, p.start, 0);
      }
      return true;
    }
    let offset = 0;
    let replaced = false;
    const ok = await this.target.applyWithRetry(
      () => {
        const p = at ? at() : this.place();
        replaced = p.end > p.start;
        const own = tracker.get(r.id);
        const extend = own !== undefined && own.end === p.start && own.end > own.start && !own.edited;
        const deleteBefore = (r.deleteBefore ?? 0) <= (this.context(p.start, p.start).replaceable ?? 0) ? (r.deleteBefore ?? 0) : 0;
        offset = p.start - deleteBefore;
        const start = extend && own ? Math.min(own.start, offset) : offset;
        const removeIds = at ? [] : [CURSOR_ID];
        if (extend) removeIds.push(r.id);
        const effect: OwnEffect = { kind: 'replace', id: r.id, removeIds, offset: start, length: offset - start + text.length };
        return { changes: [{ offset, deletedLength: p.end - offset, text }], effect };
      },
      stops,
      `insert of chunk ${r.id}`,
    );
    if (!ok) {
      this.stats.failed++;
      this.log.error(`could not write chunk ${r.id} into the document; its text is kept for the end of the run`);
      return false;
    }
    this.opened(r.id);
    this.stats.commits++;
    this.log.info(`committed chunk ${r.id} (${text.length} characters at offset ${offset})`);
    if (!at) {
      const own = tracker.get(r.id);
      const end = own ? own.end : offset + text.length;
      this.setCursor(end, end, 'point');
      if (replaced) this.collapseSelection(offset, end);
    }
    return true;
  }

  /**
   * The editor's selection of the field (or selection) the text just replaced grew over that text:
   * it becomes a caret after it, so that typing never overwrites what was dictated.
   */
  private collapseSelection(start: number, end: number): void {
    const sel = this.target.port.selection();
    if (sel && sel.start <= start && sel.end >= end && sel.end > sel.start) this.target.port.setSelection({ start: end, end }, false);
  }

  /** What follows a written result: its held words wait (shown as provisional text), then its actions run. */
  private async afterResult(r: ChunkResult): Promise<void> {
    if (r.held !== '') {
      this.hold = this.schedule(() => {
        this.hold = undefined;
        void this.enqueue(() => this.flushHeld());
      }, HOLD_BACK_MS);
    }
    this.renderProvisional();
    if (r.actions.length > 0) this.log.info(`chunk ${r.id}: ${r.actions.map((a) => a.kind).join(', ')}`);
    for (const a of r.actions) await this.actions.run(a, r.id);
  }

  /** The words held back, as text of the chunk they came from. */
  private async flushHeld(): Promise<void> {
    const c = this.place();
    const r = this.formatter.flush(this.context(c.start, c.end));
    if (!r) return;
    await this.write(r, null, this.stops(r.id));
    this.renderProvisional();
  }

  private cancelHold(): void {
    this.hold?.dispose();
    this.hold = undefined;
  }

  // ------------------------------------------------------------------ commands of the editor (keyboard, palette)

  /** "Next Field" / "Previous Field" from `from` (the editor's selection): the field becomes the insertion point. */
  selectField(direction: 'next' | 'previous', from: { start: number; end: number }): Promise<boolean> {
    let found = false;
    return this.enqueue(async () => {
      found = this.actions.selectField(direction, from);
    }).then(() => found);
  }

  /** "Accept Defaults" from the palette, in the queue of the run's edits. */
  acceptDefaults(): Promise<void> {
    return this.enqueue(() => this.actions.run({ kind: 'acceptDefaults' }, 'command'));
  }

  /** "Insert Template…" at `at` (the editor's selection): its first field becomes the insertion point. */
  insertTemplate(template: Template, at: { start: number; end: number }): Promise<void> {
    return this.enqueue(() => this.actions.insertTemplate(template, at));
  }

  /** "Scratch that" from a button: the last utterance (and the words held back with it) deleted, in the queue of the run's edits. */
  scratchThat(): Promise<void> {
    return this.enqueue(async () => {
      this.cancelHold();
      const action = this.formatter.scratchThat();
      this.renderProvisional();
      await this.actions.run(action, 'command');
    });
  }

  /** An action as if said (for commands given otherwise). */
  run(action: DictationAction): Promise<void> {
    return this.enqueue(() => this.actions.run(action, 'command'));
  }

  dispose(): void {
    this.cancelHold();
    this.steps.dispose();
  }
}
