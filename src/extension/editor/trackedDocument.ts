/**
 * The document a run writes to, and the ranges of what the run wrote in it. Every change the editor
 * reports is fed to the RangeTracker (client/ranges.ts); the run's own edits are announced to it, applied
 * to the document through its port (documentPort.ts) and settled against what the editor reports. Fires
 * when anyone else changes the document, and once when it is closed for good.
 */
import { type OwnEdit, type OwnEffect, RangeTracker } from '../../client/ranges';
import type { Logger } from '../../shared/logger';
import { Emitter, type Disposable, type DocumentPort, type UndoStops } from './documentPort';

const SETTLE_TIMEOUT_MS = 2000;
const MAX_ATTEMPTS = 5;
/** Pause before retrying an edit the editor refused because the document changed meanwhile. */
const RETRY_PAUSE_MS = 15;

/** One change of an edit of ours: `deletedLength` characters at `offset` (before the edit) replaced by `text`. */
export interface PlannedChange {
  offset: number;
  deletedLength: number;
  text: string;
}

/** An edit of ours, planned against the document as it is now. */
interface PlannedEdit {
  /** In descending offset order when there are several (as the editor reports them). */
  changes: PlannedChange[];
  effect: OwnEffect;
}

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export class TrackedDocument implements Disposable {
  readonly tracker: RangeTracker;
  private readonly listeners: Disposable[];
  private readonly waiters = new Map<OwnEdit, () => void>();
  private readonly userEditEmitter = new Emitter<void>();
  private readonly closeEmitter = new Emitter<void>();
  /** Someone else (a person, another extension, undo) changed the document. */
  readonly onDidUserEdit = this.userEditEmitter.event;
  /** Fires once when the document is closed: the run must stop, its text goes elsewhere. */
  readonly onDidClose = this.closeEmitter.event;
  private closedFlag = false;
  private disposed = false;

  constructor(
    /** The document, through its port. */
    readonly port: DocumentPort,
    anchor: number,
    private readonly log: Logger,
  ) {
    this.tracker = new RangeTracker(anchor);
    this.listeners = [
      port.onDidChange((changes) => {
        const origin = this.tracker.applyChanges(changes);
        for (const [edit, resolve] of this.waiters) {
          if (this.tracker.isSettled(edit)) resolve();
        }
        if (origin === 'user') this.userEditEmitter.fire();
      }),
      port.onDidClose(() => {
        if (this.closedFlag) return;
        this.closedFlag = true;
        this.closeEmitter.fire();
      }),
    ];
  }

  get closed(): boolean {
    return this.closedFlag;
  }

  /** Whether edits can still be made (not closed, not disposed). */
  get usable(): boolean {
    return !this.closedFlag && !this.disposed;
  }

  /** The document's text between two offsets. */
  text(start: number, end: number): string {
    return this.port.text(Math.max(0, start), Math.max(0, end));
  }

  /** The document's line break. */
  get eol(): string {
    return this.port.eol;
  }

  /**
   * Applies one edit of ours, planned afresh at each attempt (`plan` returns null when there is nothing
   * left to do), retrying when the editor refused it because the document changed in between. Resolves
   * whether it was applied.
   */
  async applyWithRetry(plan: () => PlannedEdit | null, stops: UndoStops, what: string): Promise<boolean> {
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      if (!this.usable) return false;
      const p = plan();
      if (!p) return true;
      if (await this.apply(p, stops)) return true;
      this.log.debug(`${what}: the document changed meanwhile (attempt ${attempt}); retrying`);
      await pause(RETRY_PAUSE_MS * attempt);
    }
    return false;
  }

  /**
   * Applies one edit of ours, announced to the tracker so that it is not taken for a user edit.
   * Resolves false when the editor refused it (the document changed in between): the caller recomputes
   * and retries.
   */
  async apply(planned: PlannedEdit, stops: UndoStops): Promise<boolean> {
    const own: OwnEdit = {
      changes: planned.changes.map((c) => ({
        offset: c.offset,
        deletedLength: c.deletedLength,
        insertedLength: c.text.length,
        text: c.text,
      })),
      effect: planned.effect,
    };
    this.tracker.expect(own);
    const ok = await this.port.apply(
      planned.changes.map((c) => ({ start: c.offset, end: c.offset + c.deletedLength, text: c.text })),
      stops,
    );
    if (!ok) {
      // Refused, but the editor reported these very changes meanwhile (someone made the same edit): the
      // tracker took them for ours, and the document is as planned.
      if (this.tracker.isSettled(own)) return true;
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
      const effect = planned.effect;
      this.log.warn(`an edit of ours was reported differently by the editor; chunk ${effect.id} is located from the document text`);
      if (effect.kind !== 'edit') {
        const text = planned.changes[planned.changes.length - 1]!.text;
        const found = this.port.text().indexOf(text, Math.max(0, effect.offset - 2));
        if (found >= 0) {
          for (const id of effect.kind === 'replace' ? effect.removeIds : []) this.tracker.untrack(id);
          this.tracker.track(effect.id, found, text.length);
        }
      }
    }
    return true;
  }

  dispose(): void {
    this.disposed = true;
    for (const l of this.listeners) l.dispose();
    for (const resolve of this.waiters.values()) resolve();
    this.userEditEmitter.dispose();
    this.closeEmitter.dispose();
  }
}
