/**
 * A dictation run as the editor sees it: committed chunks (a `final`, a `batch.replace`) in, text and
 * actions out. It holds back the last words of a chunk that may begin a command until the next chunk,
 * `flush()` (the caller's timer, `HOLD_BACK_MS`, or the end of the run), and keeps track of which
 * chunk's words went where, so that a `batch.replace` never writes a held word twice and never
 * re-runs a command.
 */
import { heldTail, matchCommand } from './commands';
import { formatReplacing, formatText, type DocContext, type FormatOptions } from './format';
import { applyGrammar } from './grammar';
import { TABLES } from './lang';
import { inlinePhrases, matchesAt } from './phrases';
import { fold } from './text';
import { detokenize, tokenize, type Token } from './tokenizer';
import type { DictationAction } from './types';

/** How long held-back words wait for the next chunk before the caller should `flush()`. */
export const HOLD_BACK_MS = 800;

export interface ChunkResult {
  /** The chunk the text belongs to (for `flush()`: the chunk the words were held from). */
  id: string;
  /** Text to insert where the chunk goes (spacing against the context included); may be ''. */
  text: string;
  /** Actions to run after inserting `text`, in order. */
  actions: DictationAction[];
  /** Words held back (not in `text`): show them as provisional text; '' when none. */
  held: string;
  /**
   * Characters just before the insertion point that `text` replaces (a mark said right after the mark
   * the last utterance ended with); absent when none. Only ever within `ctx.replaceable`.
   */
  deleteBefore?: number;
}

interface Held {
  id: string;
  /** The held tokens' text, and the same without the engine's trailing punctuation. */
  text: string;
  words: string;
  /** The held words are the whole utterance (a command said alone may still follow). */
  alone: boolean;
}

export class DictationFormatter {
  private options: FormatOptions;
  private pending: Held | null = null;
  /** Held words of a chunk that were written with the next chunk. */
  private readonly moved = new Map<string, { to: string; words: string }>();
  /** Words a chunk received from the chunk before it. */
  private readonly received = new Map<string, { from: string; words: string }>();
  /** Chunks that were commands, and chunks whose text a command removed. */
  private readonly commands = new Set<string>();
  private readonly deleted = new Set<string>();
  /** Chunks that wrote text, oldest first. */
  private readonly written: string[] = [];
  private lastId: string | null = null;

  constructor(options: FormatOptions) {
    this.options = { ...options };
  }

  setOptions(options: Partial<FormatOptions>): void {
    this.options = { ...this.options, ...options };
  }

  /** The words held back, if any, and the chunk they came from. */
  get held(): { id: string; text: string } | null {
    return this.pending ? { id: this.pending.id, text: this.pending.text } : null;
  }

  /** Whether a command said alone, or text a command deleted ("scratch that"), is among these chunks. */
  touchesSpent(targetIds: readonly string[]): boolean {
    return targetIds.some((t) => this.commands.has(t) || this.deleted.has(t));
  }

  /** A chunk became final (a transcript model `insert`). */
  commit(id: string, text: string, ctx: DocContext): ChunkResult {
    this.lastId = id;
    const held = this.pending;
    this.pending = null;
    let input = text;
    let alone = true;
    if (held) {
      const joined = this.joinHeld(held, text);
      // A command said alone after held words: undo and "delete that" take the held words with the
      // utterance they belong to; other commands write them first.
      const action = matchCommand(text, TABLES[this.options.language], this.options.templates ?? []);
      if (
        action &&
        !this.crossesBoundary(held, text) &&
        !(held.alone && matchCommand(joined, TABLES[this.options.language], this.options.templates ?? []))
      ) {
        if (action.kind === 'deleteLastUtterance' || action.kind === 'undo') return this.command(id, action, undefined);
        const t = formatReplacing(held.text, this.options, ctx);
        this.noteMoved(held, id, held.text);
        if (t.text !== '' || inserts(action)) this.written.push(id);
        this.commands.add(id);
        return withDelete({ id, text: t.text, actions: [action], held: '' }, t.deleteBefore);
      }
      input = joined;
      alone = held.alone;
      this.noteMoved(held, id, joined === `${held.words} ${text}` ? held.words : held.text);
    }
    if (alone) {
      const action = matchCommand(input, TABLES[this.options.language], this.options.templates ?? []);
      if (action) return this.command(id, action, held?.alone ? held.id : undefined);
    }
    return this.write(id, input, ctx, alone, true);
  }

  /**
   * Committed chunks `targetIds` are replaced by chunk `id` with `text` (a `batch.replace`, or a final
   * that changed a committed chunk). Never runs an action. Null when the document must stay as it is:
   * every target was a command or was deleted by one (a rewritten command writes nothing), or the
   * targets mix commands with dictation (their rewrite would write the command's words).
   */
  replace(targetIds: readonly string[], id: string, text: string, ctx: DocContext): ChunkResult | null {
    const targets = new Set(targetIds);
    const spent = targetIds.filter((t) => this.commands.has(t) || this.deleted.has(t));
    if (targetIds.length > 0 && spent.length === targetIds.length) {
      this.commands.add(id);
      return null;
    }
    if (spent.length > 0) return null;
    let input = text;
    const first = targetIds[0];
    const last = targetIds[targetIds.length - 1];
    const got = first ? this.received.get(first) : undefined;
    if (got && !targets.has(got.from)) {
      input = `${got.words} ${input}`;
      this.received.set(id, got);
    }
    const gave = last ? this.moved.get(last) : undefined;
    if (gave && !targets.has(gave.to)) {
      input = stripTail(input, gave.words);
      this.moved.set(id, gave);
    }
    let hold = false;
    if (this.pending && targets.has(this.pending.id)) {
      this.pending = null;
      hold = true;
    } else if (!this.pending && this.lastId !== null && targets.has(this.lastId)) {
      hold = true;
    }
    if (this.lastId !== null && targets.has(this.lastId)) this.lastId = id;
    for (const t of targetIds) {
      this.moved.delete(t);
      this.received.delete(t);
      const k = this.written.indexOf(t);
      if (k >= 0) this.written.splice(k, 1);
    }
    if (matchCommand(input, TABLES[this.options.language], this.options.templates ?? [])) {
      this.commands.add(id);
      return null;
    }
    return this.write(id, input, ctx, false, hold);
  }

  /** The held words as text (the hold-back timer fired, or the run ends); null when nothing is held. */
  flush(ctx: DocContext): ChunkResult | null {
    const held = this.pending;
    if (!held) return null;
    this.pending = null;
    const t = formatReplacing(held.text, this.options, ctx);
    if (t.text !== '' && !this.written.includes(held.id)) this.written.push(held.id);
    return withDelete({ id: held.id, text: t.text, actions: [], held: '' }, t.deleteBefore);
  }

  /** Provisional text formatted as it will be committed (held words first). */
  provisional(text: string, ctx: DocContext): string {
    const input = this.pending ? `${this.pending.text} ${text}` : text;
    return formatText(input, this.options, ctx);
  }

  /**
   * "Scratch that" given otherwise than said (a dictation microphone's button): the action that deletes
   * the last chunk that wrote text, as if said alone. Held words go with the utterance they belong to.
   */
  scratchThat(): DictationAction {
    this.pending = null;
    const target = [...this.written].reverse().find((w) => !this.deleted.has(w));
    if (!target) return { kind: 'deleteLastUtterance' };
    this.deleted.add(target);
    this.written.splice(this.written.lastIndexOf(target), 1);
    return { kind: 'deleteLastUtterance', targetId: target };
  }

  private command(id: string, action: DictationAction, heldFrom: string | undefined): ChunkResult {
    this.commands.add(id);
    if (heldFrom) this.commands.add(heldFrom);
    if (action.kind === 'deleteLastUtterance') {
      const target = [...this.written].reverse().find((w) => !this.deleted.has(w));
      if (target) {
        this.deleted.add(target);
        this.written.splice(this.written.lastIndexOf(target), 1);
        return { id, text: '', actions: [{ kind: 'deleteLastUtterance', targetId: target }], held: '' };
      }
    }
    // What a template or an auto-text inserts is what "delete that" deletes next.
    if (inserts(action)) this.written.push(id);
    return { id, text: '', actions: [action], held: '' };
  }

  private write(id: string, input: string, ctx: DocContext, alone: boolean, hold: boolean): ChunkResult {
    const tokens = tokenize(input);
    let k = hold ? heldTail(tokens, TABLES[this.options.language], alone) : 0;
    if (k > 0 && k < tokens.length) {
      // Never split what a rule reads as one ("T" + "deux" is "T2"): hold only from where a rule starts.
      const starts: number[] = [];
      applyGrammar(tokens, { table: TABLES[this.options.language], specialty: this.options.specialty ?? 'general' }, starts);
      if (!starts.includes(tokens.length - k)) k = 0;
    }
    let head: Token[] = tokens;
    if (k > 0) {
      const tail = tokens.slice(tokens.length - k);
      let w = tail.length;
      while (w > 0 && tail[w - 1]!.kind === 'punct' && tail[w - 1]!.pos !== 'lead') w--;
      this.pending = { id, text: detokenize(tail), words: detokenize(tail.slice(0, w)), alone: alone && k === tokens.length };
      head = tokens.slice(0, tokens.length - k);
    }
    const t = head.length > 0 ? formatReplacing(detokenize(head), this.options, ctx) : { text: '', deleteBefore: 0 };
    if (t.text !== '') this.written.push(id);
    return withDelete({ id, text: t.text, actions: [], held: this.pending?.id === id ? this.pending.text : '' }, t.deleteBefore);
  }

  /** The held words and the next chunk as one text: without the held punctuation when a phrase spans both. */
  private joinHeld(held: Held, text: string): string {
    return this.crossesBoundary(held, text) ? `${held.words} ${text}` : `${held.text} ${text}`;
  }

  /** Whether a phrase (or, for held words said alone, a command) starts in the held words and ends in the next chunk. */
  private crossesBoundary(held: Held, text: string): boolean {
    const table = TABLES[this.options.language];
    const a = tokenize(held.words);
    const tokens = [...a, ...tokenize(text)];
    for (let i = 0; i < a.length; i++) {
      for (const p of inlinePhrases(table)) if (i + p.norms.length > a.length && matchesAt(tokens, i, p.norms)) return true;
    }
    return held.alone && matchCommand(`${held.words} ${text}`, table, this.options.templates ?? []) !== null;
  }

  private noteMoved(held: Held, to: string, words: string): void {
    this.moved.set(held.id, { to, words });
    this.received.set(to, { from: held.id, words });
  }
}

/** Whether an action inserts text of its own (a template or an auto-text that was found). */
function inserts(a: DictationAction): boolean {
  return (a.kind === 'insertTemplate' || a.kind === 'insertAutoText') && a.template !== null;
}

function withDelete(r: ChunkResult, deleteBefore: number): ChunkResult {
  return deleteBefore > 0 ? { ...r, deleteBefore } : r;
}

/** `text` without `words` at its end (compared without case, accents or punctuation); unchanged when it does not end with them. */
function stripTail(text: string, words: string): string {
  const tokens = tokenize(text);
  const want = fold(words).split(' ').filter(Boolean);
  let end = tokens.length;
  while (end > 0 && tokens[end - 1]!.kind === 'punct') end--;
  const wordsAt: number[] = [];
  for (let i = 0; i < end; i++) if (tokens[i]!.kind !== 'punct') wordsAt.push(i);
  if (wordsAt.length < want.length) return text;
  const from = wordsAt[wordsAt.length - want.length]!;
  const got = fold(detokenize(tokens.slice(from, end)))
    .split(' ')
    .filter(Boolean);
  if (got.join(' ') !== want.join(' ')) return text;
  return detokenize(tokens.slice(0, from));
}
