/**
 * Splits an utterance into tokens: words (split at hyphens and after apostrophes so that
 * "point-virgule", "quatre-vingt-dix" and "d'interrogation" match the tables), numbers written in
 * digits, punctuation, line breaks and Markdown line markers. Each token keeps how it was attached to
 * the one before it, so text no rule touches is written back exactly as it came.
 */
import { norm } from './text';

export type TokenKind = 'word' | 'num' | 'punct' | 'break' | 'heading' | 'bullet';

export interface Token {
  text: string;
  /** Lower case, one apostrophe. */
  norm: string;
  kind: TokenKind;
  /** ' ' after whitespace (or at the start), '' glued, '-' after a hyphen inside a word. */
  glue: ' ' | '' | '-';
  /** For punctuation: before the word, after it, inside it, or standing alone. */
  pos?: 'lead' | 'trail' | 'inner' | 'alone';
  /** For line breaks: 1 or 2 (a blank line or more). */
  n?: 1 | 2;
}

const DIGITS = /^\d+(?:[.,:]\d+)*$/u;

function tok(text: string, kind: TokenKind, glue: Token['glue'], pos?: Token['pos']): Token {
  const t: Token = { text, norm: norm(text), kind, glue };
  if (pos) t.pos = pos;
  return t;
}

/** Splits the letters-and-digits core of a raw word into word and number tokens. */
function splitCore(core: string, glue: Token['glue'], out: Token[]): void {
  // Hyphens and slashes between parts; apostrophes end a part ("d'" + "interrogation").
  const re = /([^-/'’]+['’]?|['’]|-|\/)/gu;
  let g: Token['glue'] = glue;
  for (const m of core.matchAll(re)) {
    const part = m[0];
    if (part === '-') {
      g = '-';
      continue;
    }
    if (part === '/') {
      out.push(tok('/', 'punct', '', 'inner'));
      g = '';
      continue;
    }
    out.push(tok(part, DIGITS.test(part) ? 'num' : 'word', g));
    g = '';
  }
}

export function tokenize(input: string): Token[] {
  const out: Token[] = [];
  const lines = input.replace(/\r\n?/gu, '\n').split('\n');
  let pendingBreak = 0;
  lines.forEach((line, li) => {
    if (li > 0) pendingBreak++;
    const raws = [...line.matchAll(/[^\s]+|[\u00A0\u202F\u2009]/gu)];
    if (raws.every((r) => /^\s$/u.test(r[0]))) return;
    if (pendingBreak > 0 && out.length > 0) out.push({ ...tok('\n', 'break', ''), n: pendingBreak >= 2 ? 2 : 1 });
    pendingBreak = 0;
    let first = true;
    let nbGlue = false;
    for (const r of raws) {
      const raw = r[0];
      if (/^\s$/u.test(raw)) {
        nbGlue = true;
        continue;
      }
      const glue: Token['glue'] = ' ';
      if (first && /^#{1,6}$/u.test(raw)) {
        out.push({ ...tok(raw, 'heading', ' '), n: 1 });
        first = false;
        continue;
      }
      if (first && /^[-*+]$/u.test(raw)) {
        out.push(tok(raw, 'bullet', ' '));
        first = false;
        continue;
      }
      first = false;
      // "10 000": a group of three digits after a no-break space continues the number.
      const prev = out[out.length - 1];
      const group = /^(\d{3}(?:[.,]\d+)?)([^\p{L}\p{N}]*)$/u.exec(raw);
      if (nbGlue && group && prev?.kind === 'num' && /^\d{1,3}$/u.test(prev.text.split(/[\u00A0\u202F\u2009]/u).pop() ?? '')) {
        prev.text += '\u202F' + group[1]!;
        prev.norm = prev.text;
        nbGlue = false;
        for (const p of group[2]!.match(/\.\.\.|./gu) ?? []) out.push(tok(p, 'punct', '', 'trail'));
        continue;
      }
      nbGlue = false;
      const m = /^([^\p{L}\p{N}]*)(.*?)([^\p{L}\p{N}]*)$/u.exec(raw)!;
      const lead = m[1]!;
      let core = m[2]!;
      let trail = m[3]!;
      if (core === '') {
        // Only punctuation: one token per mark ("..." stays one).
        (raw.match(/\.\.\.|./gu) ?? []).forEach((p, k) => out.push(tok(p, 'punct', k > 0 ? '' : glue, 'alone')));
        continue;
      }
      let g: Token['glue'] = glue;
      for (const p of lead.match(/\.\.\.|./gu) ?? []) {
        out.push(tok(p, 'punct', g, 'lead'));
        g = '';
      }
      // An elided word keeps its apostrophe ("d'" of a command split across chunks).
      if (/^['’]/u.test(trail)) {
        core += trail.charAt(0);
        trail = trail.slice(1);
      }
      // "z.B." / "e.g." / "Abs." keep inner periods; a trailing period is punctuation.
      if (/^\p{L}(?:\.\p{L})+$/u.test(core) && trail.startsWith('.')) {
        core += '.';
        trail = trail.slice(1);
      }
      splitCore(core, g, out);
      for (const p of trail.match(/\.\.\.|./gu) ?? []) out.push(tok(p, 'punct', '', 'trail'));
    }
  });
  return out;
}

/** Text of tokens, joined as they were attached (no-break spaces become spaces). */
export function detokenize(tokens: readonly Token[]): string {
  let out = '';
  for (const t of tokens) {
    if (t.kind === 'break') {
      out += t.n === 2 ? '\n\n' : '\n';
      continue;
    }
    const sep = out === '' || out.endsWith('\n') ? '' : t.glue === '-' ? '-' : t.glue === '' ? '' : ' ';
    out += sep + t.text;
  }
  return out;
}
