/**
 * A document dictated into, without an editor: text, a selection, the range each chunk wrote, and an
 * undo history. It applies what `DictationFormatter` returns as an editor would — the command line
 * (`dist/format.js`) is built on it, and it is the reference for how the extension applies actions.
 */
import { DictationFormatter, type ChunkResult } from './stream';
import type { FormatOptions } from './format';
import { acceptDefaults, nextField, previousField, templateInsertion } from './templates';
import type { DictationAction } from './types';

interface Range {
  start: number;
  end: number;
}

export class DictationDocument {
  text = '';
  selection: Range = { start: 0, end: 0 };
  /**
   * Why something was not done (an unknown template, dictation after "stop"), by the number of the
   * utterance (1 = the first `dictate`); never with the dictated words.
   */
  readonly warnings: Array<{ utterance: number; message: string }> = [];
  stopped = false;
  private readonly formatter: DictationFormatter;
  private readonly ranges = new Map<string, Range>();
  private readonly history: Array<{ text: string; selection: Range; ranges: Array<[string, Range]> }> = [];
  private next = 0;

  constructor(options: FormatOptions, initial = '') {
    this.formatter = new DictationFormatter(options);
    this.text = initial;
    this.selection = { start: initial.length, end: initial.length };
  }

  /** One utterance, as a final chunk of its own. */
  dictate(utterance: string): void {
    const id = `u${this.next++}`;
    if (this.stopped) {
      this.warn('not written: dictation was stopped before it');
      return;
    }
    this.apply(this.formatter.commit(id, utterance, this.context()));
  }

  /** The end of dictation: held-back words are written. */
  end(): void {
    const r = this.formatter.flush(this.context());
    if (r) this.apply(r);
  }

  private warn(message: string): void {
    this.warnings.push({ utterance: this.next, message });
  }

  /** Everything before the insertion point was dictated here: a mark said after a mark may replace it. */
  private context(): { before: string; after: string; replaceable: number } {
    return {
      before: this.text.slice(0, this.selection.start),
      after: this.text.slice(this.selection.end),
      replaceable: this.selection.start,
    };
  }

  private snapshot(): void {
    this.history.push({ text: this.text, selection: { ...this.selection }, ranges: [...this.ranges].map(([k, r]) => [k, { ...r }]) });
  }

  /**
   * Replaces [start, end) with `insert`, moving the chunk ranges after it. A range the edit falls inside
   * grows or shrinks with it; a range whose end it cuts off ends where it starts (the inserted text is
   * the owner's).
   */
  private edit(start: number, end: number, insert: string, owner?: string): void {
    this.text = this.text.slice(0, start) + insert + this.text.slice(end);
    const delta = insert.length - (end - start);
    for (const r of this.ranges.values()) {
      if (r.start >= end) {
        r.start += delta;
        r.end += delta;
      } else if (r.end > start) {
        r.end = owner && r.start < start && end >= r.end ? start : Math.max(start, r.end + delta);
        r.start = Math.min(r.start, r.end);
      }
    }
    if (owner) {
      const prev = this.ranges.get(owner);
      this.ranges.set(
        owner,
        prev && prev.end === start ? { start: prev.start, end: start + insert.length } : { start, end: start + insert.length },
      );
    }
  }

  private apply(r: ChunkResult): void {
    if (r.text !== '') {
      this.snapshot();
      const at = this.selection.start - (r.deleteBefore ?? 0);
      this.edit(at, this.selection.end, r.text, r.id);
      this.selection = { start: at + r.text.length, end: at + r.text.length };
    }
    for (const a of r.actions) this.act(a, r.id);
  }

  /** `id`: the chunk that said the command (what a template or an auto-text inserts belongs to it). */
  private act(a: DictationAction, id: string): void {
    switch (a.kind) {
      case 'deleteLastUtterance': {
        const found = a.targetId ? this.ranges.get(a.targetId) : undefined;
        if (!found) break;
        const range = { ...found };
        this.snapshot();
        const at = this.selection.start;
        this.edit(range.start, range.end, '');
        this.ranges.delete(a.targetId!);
        const pos = at >= range.end ? at - (range.end - range.start) : Math.min(at, range.start);
        this.selection = { start: pos, end: pos };
        break;
      }
      case 'undo': {
        const h = this.history.pop();
        if (!h) break;
        this.text = h.text;
        this.selection = h.selection;
        this.ranges.clear();
        for (const [k, v] of h.ranges) this.ranges.set(k, v);
        break;
      }
      case 'nextField': {
        const f = nextField(this.text, this.selection.end);
        if (f) this.selection = { start: f.start, end: f.end };
        else this.warn('no field after the cursor');
        break;
      }
      case 'previousField': {
        const f = previousField(this.text, this.selection.start);
        if (f) this.selection = { start: f.start, end: f.end };
        else this.warn('no field before the cursor');
        break;
      }
      case 'acceptDefaults': {
        this.snapshot();
        // A selected field takes its default and dictation goes on after it.
        const before = acceptDefaults(this.text.slice(0, this.selection.end)).text.length;
        for (const e of acceptDefaults(this.text).edits) this.edit(e.offset, e.offset + e.length, e.text);
        this.selection = { start: before, end: before };
        break;
      }
      case 'insertTemplate':
      case 'insertAutoText': {
        if (!a.template) {
          this.warn('no template has the name said');
          break;
        }
        this.snapshot();
        const at = this.selection.start;
        const ins = templateInsertion(a.kind, this.text.slice(0, at), a.template.content);
        this.edit(at, this.selection.end, ins.text, id);
        this.selection = { start: at + ins.select.start, end: at + ins.select.end };
        break;
      }
      case 'stopDictation':
        this.stopped = true;
        break;
      case 'whatCanISay':
        break;
    }
  }
}
