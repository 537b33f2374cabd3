import * as vscode from 'vscode';
import type { Logger } from '../shared/logger';
import { joinText } from '../client/format';
import { type OwnEdit, type OwnEffect, RangeTracker, type TextChange } from '../client/ranges';
import type { TranscriptOp } from '../client/transcript';
import type { ProvisionalDecoration } from './provisionalDecoration';
import { errorMessage } from '../shared/errors';

/** The selection the run started with: replaced by the first dictated text unless the user edits it. */
const SELECTION_ID = '\u0000selection';
const MAX_ATTEMPTS = 5;
const SETTLE_TIMEOUT_MS = 2000;
/** How long a closed target may take to reappear (a language change closes and reopens it). */
const REOPEN_GRACE_MS = 300;
/** Pause before retrying an edit the editor refused because the document changed meanwhile. */
const RETRY_PAUSE_MS = 15;

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

interface PlannedChange {
  offset: number;
  deletedLength: number;
  text: string;
}

export interface WriterStats {
  commits: number;
  replaces: number;
  conflicts: number;
  failed: number;
}

/**
 * Applies the transcript model's operations to the run's target document: committed chunks as real
 * edits (one undo step each), `batch.replace` as a rewrite of exactly the tracked text, provisional
 * text as a decoration. Edits go through one queue (never two in flight) and go to the document, not
 * to whichever editor is active. Text a person edited is never rewritten.
 */
export class DocumentWriter implements vscode.Disposable {
  private readonly tracker: RangeTracker;
  private queue: Promise<void> = Promise.resolve();
  private readonly listeners: vscode.Disposable[] = [];
  private readonly closeEmitter = new vscode.EventEmitter<void>();
  /** Fires once when the target document is closed: the run must stop, its text goes elsewhere. */
  readonly onDidCloseTarget = this.closeEmitter.event;
  private closedFlag = false;
  private disposed = false;
  private readonly waiters = new Map<OwnEdit, () => void>();
  private provisional: { text: string; afterId: string | null } = { text: '', afterId: null };
  readonly stats: WriterStats = { commits: 0, replaces: 0, conflicts: 0, failed: 0 };

  private readonly uri: string;
  private docValue: vscode.TextDocument;

  constructor(
    doc: vscode.TextDocument,
    anchor: number,
    selectionLength: number,
    private readonly log: Logger,
    private readonly decoration: ProvisionalDecoration,
  ) {
    this.docValue = doc;
    this.uri = doc.uri.toString();
    this.tracker = new RangeTracker(anchor);
    if (selectionLength > 0) this.tracker.track(SELECTION_ID, anchor, selectionLength);
    this.listeners.push(
      vscode.workspace.onDidChangeTextDocument((e) => {
        if (e.document.uri.toString() !== this.uri || e.contentChanges.length === 0) return;
        this.docValue = e.document;
        const changes: TextChange[] = e.contentChanges.map((c) => ({
          offset: c.rangeOffset,
          deletedLength: c.rangeLength,
          insertedLength: c.text.length,
          text: c.text,
        }));
        const origin = this.tracker.applyChanges(changes);
        for (const [edit, resolve] of this.waiters) {
          if (this.tracker.isSettled(edit)) resolve();
        }
        if (origin === 'user') this.renderProvisional();
      }),
      vscode.workspace.onDidCloseTextDocument((d) => {
        if (d.uri.toString() !== this.uri || this.closedFlag) return;
        // Changing a document's language closes and reopens it at once: that is not the end of it.
        setTimeout(() => {
          if (this.closedFlag || this.disposed) return;
          const again = vscode.workspace.textDocuments.find((t) => t.uri.toString() === this.uri && !t.isClosed);
          if (again) {
            this.log.info(`the target document ${again.uri.toString(true)} was reopened (language ${again.languageId}); dictation goes on`);
            this.docValue = again;
            return;
          }
          this.closedFlag = true;
          this.log.warn(`the target document ${d.uri.toString(true)} was closed during dictation`);
          this.closeEmitter.fire();
        }, REOPEN_GRACE_MS);
      }),
    );
  }

  /** The target document (the same URI for the whole run). */
  get doc(): vscode.TextDocument {
    return this.docValue;
  }

  /** Whether the target document was closed. */
  get closed(): boolean {
    return this.closedFlag;
  }

  /** Queues operations; resolves when they are applied. Never rejects. */
  write(ops: readonly TranscriptOp[]): Promise<void> {
    if (ops.length === 0) return this.queue;
    const run = async (): Promise<void> => {
      for (const op of ops) {
        if (this.closedFlag || this.disposed) return;
        try {
          if (op.kind === 'insert') await this.insert(op.id, op.text, op.prevId, op.nextId);
          else if (op.kind === 'replace') await this.replace(op);
          else {
            this.provisional = { text: op.text, afterId: op.afterId };
            this.renderProvisional();
          }
        } catch (e) {
          this.stats.failed++;
          this.log.error(`could not apply ${op.kind}: ${errorMessage(e)}`);
        }
      }
    };
    this.queue = this.queue.then(run, run);
    return this.queue;
  }

  /** Resolves when every queued operation is applied. */
  flush(): Promise<void> {
    return this.queue;
  }

  /** Hides the provisional text. */
  clearProvisional(): void {
    this.provisional = { text: '', afterId: null };
    this.decoration.clear();
  }

  private renderProvisional(): void {
    if (this.closedFlag || this.disposed) return;
    const { text, afterId } = this.provisional;
    if (text === '') {
      this.decoration.clear();
      return;
    }
    const after = afterId === null ? undefined : this.tracker.get(afterId);
    const offset = after ? after.end : afterId === null ? this.tracker.anchor : this.tracker.end();
    this.decoration.show(this.doc, offset, joinText(this.around(offset, offset)[0], text, ''));
  }

  /** Up to two characters before `start` and after `end`. */
  private around(start: number, end: number): [string, string] {
    const d = this.doc;
    const before = d.getText(new vscode.Range(d.positionAt(Math.max(0, start - 2)), d.positionAt(start)));
    const after = d.getText(new vscode.Range(d.positionAt(end), d.positionAt(end + 2)));
    return [before, after];
  }

  /** `joinText` spacing from the real neighbours, newlines in the document's own EOL. */
  private spaced(start: number, end: number, text: string): string {
    const [before, after] = this.around(start, end);
    const joined = joinText(before, text, after);
    const eol = this.doc.eol === vscode.EndOfLine.CRLF ? '\r\n' : '\n';
    return joined.replace(/\r\n|\r|\n/g, eol);
  }

  private async insert(id: string, text: string, prevId: string | null, nextId: string | null): Promise<void> {
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      let offset = this.tracker.insertionOffset(prevId, nextId);
      let deleted = 0;
      const sel = this.tracker.get(SELECTION_ID);
      if (sel && sel.edited) {
        this.log.info('the selection the run started with was edited: it is kept');
        this.tracker.untrack(SELECTION_ID);
      } else if (sel && prevId === null) {
        offset = sel.start;
        deleted = sel.end - sel.start;
      }
      const s = this.spaced(offset, offset + deleted, text);
      if (s === '' && deleted === 0) {
        this.tracker.track(id, offset, 0);
        return;
      }
      const effect: OwnEffect =
        deleted > 0
          ? { kind: 'replace', id, removeIds: [SELECTION_ID], offset, length: s.length }
          : { kind: 'insert', id, offset, length: s.length };
      if (await this.applyOwn([{ offset, deletedLength: deleted, text: s }], effect)) {
        this.stats.commits++;
        this.log.info(`committed chunk ${id} (${s.length} characters at offset ${offset}${deleted ? ', replacing the selection' : ''})`);
        return;
      }
      this.log.debug(`insert of chunk ${id}: the document changed meanwhile (attempt ${attempt}); retrying`);
      await pause(RETRY_PAUSE_MS * attempt);
    }
    this.stats.failed++;
    this.log.error(`could not write chunk ${id} into ${this.doc.uri.toString(true)}; its text is kept for the end of the run`);
  }

  private async replace(op: Extract<TranscriptOp, { kind: 'replace' }>): Promise<void> {
    const known = op.targetIds.filter((t) => this.tracker.has(t));
    if (known.length === 0) {
      if (op.text.trim() !== '') await this.insert(op.id, op.text, op.prevId, op.nextId);
      return;
    }
    const edited = known.filter((t) => this.tracker.get(t)!.edited);
    if (edited.length > 0) {
      this.stats.conflicts++;
      this.log.warn(
        `conflict: batch.replace of ${known.join(', ')} by chunk ${op.id} not applied: the text of ${edited.join(', ')} was edited in the document; the edited text is kept`,
      );
      this.tracker.merge(known, op.id);
      return;
    }
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      const targets = known.map((t) => this.tracker.get(t)!).sort((a, b) => a.start - b.start);
      const first = targets[0]!;
      const last = targets[targets.length - 1]!;
      const contiguous = targets.every((t, i) => i === 0 || targets[i - 1]!.end === t.start);
      let planned: PlannedChange[];
      let s: string;
      if (contiguous) {
        s = this.spaced(first.start, last.end, op.text);
        const current = this.doc.getText(new vscode.Range(this.doc.positionAt(first.start), this.doc.positionAt(last.end)));
        if (current === s) {
          // Same text: nothing to rewrite, the new chunk takes over the range.
          for (const t of known) this.tracker.untrack(t);
          this.tracker.track(op.id, first.start, s.length);
          return;
        }
        planned = [{ offset: first.start, deletedLength: last.end - first.start, text: s }];
      } else {
        // Text typed between the targets stays: rewrite the first, delete the others.
        s = this.spaced(first.start, first.end, op.text);
        planned = targets.map((t, i) => ({ offset: t.start, deletedLength: t.end - t.start, text: i === 0 ? s : '' })).reverse();
      }
      const effect: OwnEffect = { kind: 'replace', id: op.id, removeIds: known, offset: first.start, length: s.length };
      if (await this.applyOwn(planned, effect)) {
        this.stats.replaces++;
        this.log.info(`replaced chunks ${known.join(', ')} by chunk ${op.id} (${s.length} characters at offset ${first.start})`);
        return;
      }
      this.log.debug(`replace by chunk ${op.id}: the document changed meanwhile (attempt ${attempt}); retrying`);
      await pause(RETRY_PAUSE_MS * attempt);
      if (known.some((t) => this.tracker.get(t)?.edited)) {
        // The person typed into the targets while we were retrying: their text wins.
        this.stats.conflicts++;
        this.log.warn(`conflict: batch.replace of ${known.join(', ')} by chunk ${op.id} not applied: the text was edited meanwhile; the edited text is kept`);
        this.tracker.merge(known, op.id);
        return;
      }
    }
    this.stats.failed++;
    this.log.error(`could not rewrite chunks ${known.join(', ')} in ${this.doc.uri.toString(true)}; the earlier text is left as it is`);
  }

  /**
   * Applies one edit of ours (changes in descending offset order, as the editor reports them) as one
   * undo step, announced to the tracker so that it is not taken for a user edit. Resolves false when
   * the editor refused it (the document changed in between): the caller recomputes and retries.
   */
  private async applyOwn(planned: PlannedChange[], effect: OwnEffect): Promise<boolean> {
    const own: OwnEdit = {
      changes: planned.map((c) => ({ offset: c.offset, deletedLength: c.deletedLength, insertedLength: c.text.length, text: c.text })),
      effect,
    };
    const d = this.doc;
    const ranges = planned.map((c) => new vscode.Range(d.positionAt(c.offset), d.positionAt(c.offset + c.deletedLength)));
    this.tracker.expect(own);
    let ok = false;
    try {
      const editor = vscode.window.visibleTextEditors.find((e) => e.document.uri.toString() === this.uri);
      if (editor) {
        ok = await editor.edit(
          (b) => planned.forEach((c, i) => (c.deletedLength === 0 ? b.insert(ranges[i]!.start, c.text) : b.replace(ranges[i]!, c.text))),
          { undoStopBefore: true, undoStopAfter: true },
        );
      } else {
        const we = new vscode.WorkspaceEdit();
        planned.forEach((c, i) => we.replace(d.uri, ranges[i]!, c.text));
        ok = await vscode.workspace.applyEdit(we);
      }
    } catch (e) {
      this.log.debug(`edit refused: ${errorMessage(e)}`);
      ok = false;
    }
    if (!ok) {
      this.tracker.withdraw(own);
      return false;
    }
    if (!this.tracker.isSettled(own)) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, SETTLE_TIMEOUT_MS);
        function done(): void {
          clearTimeout(timer);
          resolve();
        }
        this.waiters.set(own, done);
      });
      this.waiters.delete(own);
    }
    if (!this.tracker.isSettled(own)) {
      // The editor applied it but reported something else: read the truth from the document.
      this.tracker.withdraw(own);
      this.log.warn(`an edit of ours was reported differently by the editor; chunk ${effect.id} is located from the document text`);
      const text = planned[planned.length - 1]!.text;
      const found = d.getText().indexOf(text, Math.max(0, effect.offset - 2));
      if (found >= 0) {
        for (const id of effect.kind === 'replace' ? effect.removeIds : []) this.tracker.untrack(id);
        this.tracker.track(effect.id, found, text.length);
      }
    }
    return true;
  }

  dispose(): void {
    this.disposed = true;
    for (const l of this.listeners) l.dispose();
    for (const resolve of this.waiters.values()) resolve();
    this.closeEmitter.dispose();
    this.decoration.clear();
  }
}
