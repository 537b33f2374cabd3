/**
 * Typography: turns items into the text to insert between the document's `before` and `after`, with
 * the language's spacing (French no-break spaces before ": ; ! ?" and inside « »), Spanish ¿ ¡ at the
 * start of a question dictated with its opening word, capitals at the start of the document, after
 * ". ? !" and after a line break, and the spaces that join the text to what is around it.
 */
import type { LanguageTable } from './lang/table';
import { NBSP, capitalise, isSpaceChar } from './text';
import type { Item } from './types';

const OPENING = new Set(['(', '[', '{', '«', '“', '‘', '¿', '¡', '„']);
const CLOSING = new Set(['.', ',', ';', ':', '!', '?', ')', ']', '}', '»', '…', '%', '”', '’', '“']);
const APOSTROPHES = new Set(["'", '’']);

/** Whether text ending with `before` is at the start of a sentence (a capital comes next). */
export function atSentenceStart(before: string, table: LanguageTable): boolean {
  let t = before.slice(-80).replace(/[ \t\u00A0\u202F]+$/u, '');
  // Opening brackets and quotes at a sentence start keep it one.
  while (t.length > 0 && OPENING.has(t.charAt(t.length - 1))) t = t.slice(0, -1).replace(/[ \t\u00A0\u202F]+$/u, '');
  if (t === '' || t.endsWith('\n')) return true;
  if (/(?:^|\n)(?:#{1,6}|[-*+]|\d+\.)$/u.test(t) && before.endsWith(' ')) return true;
  const last = t.charAt(t.length - 1);
  if (last === '?' || last === '!') return true;
  if (last !== '.') return false;
  const word = /([\p{L}\p{N}.]*)\.$/u.exec(t)?.[1] ?? '';
  if (/^\p{Lu}$/u.test(word)) return false; // "L.", initials
  if (table.typography.ordinalDot && /^\d+$/u.test(word)) return false; // German "3."
  if (table.abbreviations.includes(word.toLowerCase())) return false;
  return true;
}

function lastChar(s: string): string {
  return s.length ? s.charAt(s.length - 1) : '';
}

/** Whether a word (or opening bracket) written after `prev` needs a space before it. */
function spaceBeforeWord(prev: string): boolean {
  if (prev === '' || isSpaceChar(prev)) return false;
  if (OPENING.has(prev) || APOSTROPHES.has(prev) || prev === '-' || prev === '/') return false;
  return true;
}

function trailingNewlines(s: string): number {
  const m = /\n*$/u.exec(s.replace(/[ \t]+$/u, ''));
  return m ? m[0].length : 0;
}

export interface RenderContext {
  /** Document text before the insertion point (the last few dozen characters are enough; '' = start of document). */
  before: string;
  /** Document text after the insertion point (the first few characters are enough). */
  after: string;
  /**
   * How many characters at the end of `before` are dictated text the grammar may rewrite (a mark said
   * after the mark an utterance ended with replaces it). 0 when absent: that text is never touched.
   */
  replaceable?: number;
}

export interface Rendered {
  /** The text to insert. */
  text: string;
  /** Characters just before the insertion point that `text` replaces (0: none). */
  deleteBefore: number;
}

/** A mark at the end of the text before the insertion point, with the no-break space French puts before it. */
const PREVIOUS_MARK = /[\u00A0\u202F]?([.,;:!?…])[ \t\u00A0\u202F]*$/u;

/**
 * `render`, and a spoken mark that comes right after a mark the text before ended with: it replaces
 * that mark when the caller says it may (`replaceable`), otherwise its words are written — never ".?".
 */
export function renderReplacing(items: readonly Item[], table: LanguageTable, ctx: RenderContext): Rendered {
  const first = items[0];
  if (first?.k === 'mark' && first.spoken) {
    const m = PREVIOUS_MARK.exec(ctx.before);
    if (m && m[1] !== first.ch) {
      const n = m[0].length;
      if (n <= (ctx.replaceable ?? 0))
        return { text: render(items, table, { before: ctx.before.slice(0, -n), after: ctx.after }), deleteBefore: n };
      if (first.said) return { text: render([{ k: 'w', text: first.said, glue: ' ' }, ...items.slice(1)], table, ctx), deleteBefore: 0 };
    }
  }
  return { text: render(items, table, ctx), deleteBefore: 0 };
}

function render(items: readonly Item[], table: LanguageTable, ctx: RenderContext): string {
  const ty = table.typography;
  let out = '';
  let capNext = atSentenceStart(ctx.before, table);
  /** Offset in `out` where the current sentence starts, -1 when it started before this text. */
  let sentenceStart = -1;
  let sentencePending = capNext;
  let prevWord = /[\p{L}\p{N}.]*$/u.exec(ctx.before.slice(-40).replace(/\.$/u, ''))?.[0] ?? '';
  const tail = (): string => (out.length > 0 ? out : ctx.before);
  const full = (): string => ctx.before.slice(-8) + out;
  const docStart = (): boolean => ctx.before.trim() === '' && out.trim() === '';

  for (const it of items) {
    switch (it.k) {
      case 'w': {
        const prev = lastChar(tail());
        let sep = '';
        if (it.glue === 'nb') sep = prev === '' || isSpaceChar(prev) ? '' : NBSP;
        else if (it.glue === '-') sep = prev === '-' ? '' : '-';
        else if (it.glue === ' ') {
          sep = spaceBeforeWord(prev) ? ' ' : '';
          if (prev === '"' && out.length === 0) {
            const p2 = ctx.before.charAt(ctx.before.length - 2);
            if (p2 === '' || isSpaceChar(p2)) sep = '';
          }
        }
        out += sep;
        if (sentencePending) {
          sentenceStart = out.length;
          sentencePending = false;
        }
        out += capNext && !it.literal ? capitalise(it.text) : it.text;
        if (/[\p{L}\p{N}]/u.test(it.text)) capNext = false;
        prevWord = it.text;
        break;
      }
      case 'mark': {
        const before = full().replace(/[ \u00A0\u202F]+$/u, '');
        if (out.trim() === '' && lastChar(before) === it.ch) break; // never double a mark already written
        const prev = lastChar(tail());
        const space = ty.spaceBefore[it.ch];
        if (docStart()) break;
        out += space && prev !== '' && !isSpaceChar(prev) && !OPENING.has(prev) ? space : '';
        if (ty.invertedOpening[it.ch] && sentenceStart >= 0) {
          const inv = ty.invertedOpening[it.ch]!;
          if (!out.slice(sentenceStart).includes(inv)) {
            out = out.slice(0, sentenceStart) + inv + out.slice(sentenceStart);
          }
        }
        out += it.ch;
        const abbreviation =
          it.ch === '.' &&
          (/^\p{Lu}$/u.test(prevWord) ||
            table.abbreviations.includes(prevWord.toLowerCase()) ||
            (ty.ordinalDot && /^\d+$/u.test(prevWord)));
        if ((it.ch === '.' || it.ch === '?' || it.ch === '!') && !abbreviation) {
          capNext = true;
          sentencePending = true;
          sentenceStart = -1;
        } else if (it.ch !== '…') {
          capNext = false;
        }
        prevWord = '';
        break;
      }
      case 'open': {
        const prev = lastChar(tail());
        out += spaceBeforeWord(prev) ? ' ' : '';
        if (sentencePending) {
          sentenceStart = out.length;
          sentencePending = false;
        }
        out += it.ch;
        if (it.ch === '«' && ty.insideGuillemets) out += ty.insideGuillemets;
        break;
      }
      case 'close': {
        const prev = lastChar(tail());
        if (it.ch === '»' && ty.insideGuillemets && prev !== '' && !isSpaceChar(prev)) out += ty.insideGuillemets;
        out += it.ch;
        break;
      }
      case 'join':
        if (docStart()) break;
        out = out.replace(/[ ]+$/u, '');
        out += it.ch;
        break;
      case 'dash': {
        const prev = lastChar(tail());
        out += (spaceBeforeWord(prev) ? ' ' : '') + '–' + ' ';
        break;
      }
      case 'br': {
        if (docStart()) break;
        out = out.replace(/[ \t\u00A0\u202F]+$/u, '');
        const have = trailingNewlines(full());
        if (have < it.n) out += '\n'.repeat(it.n - have);
        capNext = true;
        sentencePending = true;
        sentenceStart = -1;
        break;
      }
      case 'head':
      case 'bullet': {
        out = out.replace(/[ \t\u00A0\u202F]+$/u, '');
        const need = docStart() ? 0 : it.k === 'head' ? 2 : 1;
        const have = trailingNewlines(full());
        if (have < need) out += '\n'.repeat(need - have);
        out += it.k === 'head' ? `${'#'.repeat(it.level)} ` : '- ';
        capNext = true;
        sentencePending = true;
        sentenceStart = -1;
        break;
      }
    }
  }
  // Joining the text to what follows it.
  const first = ctx.after.charAt(0);
  const last = lastChar(out);
  if (
    out.trim() !== '' &&
    first !== '' &&
    !isSpaceChar(first) &&
    !CLOSING.has(first) &&
    last !== '' &&
    !isSpaceChar(last) &&
    !OPENING.has(last) &&
    !APOSTROPHES.has(last) &&
    last !== '-' &&
    last !== '/'
  ) {
    out += ' ';
  }
  return out;
}
