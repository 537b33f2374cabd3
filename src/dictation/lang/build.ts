/** Helpers that keep the language tables short: phrase rules and number words. */
import type { Item, NumberKind, NumberWord, PhraseRule } from '../types';

export function n(kind: NumberKind, value: number, ord?: NumberWord['ord']): NumberWord {
  return ord ? { kind, value, ord } : { kind, value };
}

export const mark = (ch: string): Item => ({ k: 'mark', ch, spoken: true });
export const open = (ch: string): Item => ({ k: 'open', ch, spoken: true });
export const close = (ch: string): Item => ({ k: 'close', ch, spoken: true });
export const join = (ch: string): Item => ({ k: 'join', ch });
export const dash: Item = { k: 'dash', spoken: true };
export const br = (count: 1 | 2): Item => ({ k: 'br', n: count, spoken: true });
export const head = (level: number): Item => ({ k: 'head', level });
export const bullet: Item = { k: 'bullet' };

export function rule(
  doc: string,
  say: string[],
  out: Item[],
  guards: Partial<Pick<PhraseRule, 'notAfter' | 'notBefore' | 'specialties' | 'notAfterAdjective'>> = {},
): PhraseRule {
  return { doc, say, out, ...guards };
}
