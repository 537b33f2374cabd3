/**
 * Number classes, tried before punctuation so that they claim "virgule", "tiret", "sur" first: legal
 * references, vertebral levels and MRI weighting, blood pressure, dates, dimensions, numbers with a
 * unit or "%", and ordinals. Each returns the items it writes and where it stops, or null ("leave the
 * words" when unsure).
 */
import type { LanguageTable } from './lang/table';
import { groupDigits, parseNumber, type NumberOptions, type ParsedNumber } from './numbers';
import { matchesAt, phraseNorms } from './phrases';
import type { Token } from './tokenizer';
import type { Glue, Item, Specialty } from './types';

export interface Ctx {
  table: LanguageTable;
  tokens: Token[];
  specialty: Specialty;
  nopt: NumberOptions;
  /** Numbers already parsed, by token index (every rule asks for the same ones). */
  numbers: Map<number, ParsedNumber | null>;
}

export interface Claim {
  items: Item[];
  end: number;
}

const w = (text: string, glue: Glue = ' '): Item => ({ k: 'w', text, glue });

export function numberAt(ctx: Ctx, i: number): ParsedNumber | null {
  let n = ctx.numbers.get(i);
  if (n === undefined) {
    n = parseNumber(ctx.nopt, ctx.tokens, i);
    ctx.numbers.set(i, n);
  }
  return n;
}

/** An integer (no decimal, no ordinal) at i. */
function intAt(ctx: Ctx, i: number): ParsedNumber | null {
  const n = numberAt(ctx, i);
  return n && !n.decimal && !n.ord ? n : null;
}

/** Digits of a number for prose: words grouped from 5 digits; digits the engine wrote as they came. */
export function digitsOf(ctx: Ctx, n: ParsedNumber): string {
  if (!n.fromWords || n.decimal) return n.digits;
  return groupDigits(n.value, ctx.table.groupSeparator);
}

const unitCache = new WeakMap<LanguageTable, Array<{ norms: string[]; out: string }>>();

/** The unit (or "%") at token i, longest spoken form first. */
export function unitAt(ctx: Ctx, i: number): { out: string; end: number; percent: boolean } | null {
  let list = unitCache.get(ctx.table);
  if (!list) {
    list = [
      ...ctx.table.units.flatMap((u) => [...u.say, u.out].map((s) => ({ norms: phraseNorms(s), out: u.out }))),
      ...ctx.table.percent.map((s) => ({ norms: phraseNorms(s), out: '%' })),
    ].sort((a, b) => b.norms.length - a.norms.length);
    unitCache.set(ctx.table, list);
  }
  for (const u of list) if (matchesAt(ctx.tokens, i, u.norms)) return { out: u.out, end: i + u.norms.length, percent: u.out === '%' };
  return null;
}

function unitItems(ctx: Ctx, u: { out: string; percent: boolean }): Item[] {
  return [w(u.out, u.percent && !ctx.table.typography.percentSpace ? '' : 'nb')];
}

const legalWords = new WeakMap<LanguageTable, Set<string>[]>();

/** "article L. 1232-1", "§ 823 Abs. 1 S. 2 BGB", "artículo 1902". */
export function legalAt(ctx: Ctx, i: number): Claim | null {
  const t = ctx.tokens[i]!;
  let words = legalWords.get(ctx.table);
  if (!words) {
    words = ctx.table.legal.map((r) => new Set(r.say.map((s) => phraseNorms(s)[0]!)));
    legalWords.set(ctx.table, words);
  }
  for (const [k, rule] of ctx.table.legal.entries()) {
    if (rule.specialties && !rule.specialties.includes(ctx.specialty)) continue;
    if (!words[k]!.has(t.norm)) continue;
    let j = i + 1;
    const items: Item[] = [w(rule.out === t.norm || rule.out === t.norm.replace(/s$/u, '') ? t.text : rule.out, ' ')];
    const letter = ctx.tokens[j];
    if (rule.letters && letter?.kind === 'word' && /^[LRDA]$/u.test(letter.text)) {
      items.push(w(`${letter.text}.`));
      j++;
      if (ctx.tokens[j]?.text === '.') j++;
    }
    const first = pairedAt(ctx, j);
    if (!first) return null;
    let ref = String(first.value);
    j = first.end;
    for (;;) {
      const h = ctx.tokens[j];
      if (h?.kind === 'num' && h.glue === '-' && /^\d+$/u.test(h.text)) {
        ref += `-${h.text}`;
        j++;
        continue;
      }
      if (h?.kind === 'word' && rule.hyphen?.includes(h.norm)) {
        const more = intAt(ctx, j + 1);
        if (more) {
          ref += `-${more.value}`;
          j = more.end;
          continue;
        }
      }
      break;
    }
    items.push(w(ref));
    // Sub-divisions: "Absatz eins" → "Abs. 1".
    for (;;) {
      const p = ctx.tokens[j];
      const abbr = p?.kind === 'word' ? rule.parts?.[p.norm] : undefined;
      if (!abbr) break;
      let k = j + 1;
      if (ctx.tokens[k]?.text === '.') k++;
      const num = intAt(ctx, k);
      if (!num) break;
      items.push(w(abbr === p!.norm ? p!.text : abbr), w(String(num.value)));
      j = num.end;
    }
    return { items, end: j };
  }
  return null;
}

const LEVELS: Record<string, number> = { C: 7, T: 12, Th: 12, D: 12, L: 5, S: 5 };
const NEXT_REGION: Record<string, string[]> = { C: ['T', 'Th'], T: ['L'], Th: ['L'], D: ['L'], L: ['S'] };

interface Level {
  letter: string;
  n: number;
  end: number;
}

function levelAt(ctx: Ctx, i: number): Level | null {
  const t = ctx.tokens[i];
  if (!t || t.kind !== 'word') return null;
  const joined = /^(Th|[A-Z])(\d{1,2})$/u.exec(t.text);
  if (joined && ctx.table.vertebraLetters.includes(joined[1]!)) {
    const n = Number(joined[2]);
    return n >= 1 && n <= (LEVELS[joined[1]!] ?? 0) ? { letter: joined[1]!, n, end: i + 1 } : null;
  }
  if (!ctx.table.vertebraLetters.includes(t.text)) return null;
  const num = intAt(ctx, i + 1);
  if (!num || num.value < 1 || num.value > (LEVELS[t.text] ?? 0)) return null;
  return { letter: t.text, n: num.value, end: num.end };
}

function adjacent(a: Level, b: Level): boolean {
  if (a.letter === b.letter) return b.n === a.n + 1 && a.letter !== 'S' && !(a.letter === 'T' && a.n === 1);
  return b.n === 1 && a.n === LEVELS[a.letter] && (NEXT_REGION[a.letter] ?? []).includes(b.letter);
}

/** "L quatre L cinq" / "L quatre cinq" → "L4-L5"; "L cinq S un" → "L5-S1"; "T deux" → "T2" (+ "-weighted"). */
export function vertebraAt(ctx: Ctx, i: number): Claim | null {
  const a = levelAt(ctx, i);
  if (!a) return null;
  let text = `${a.letter}${a.n}`;
  let end = a.end;
  const b = levelAt(ctx, end);
  if (b && adjacent(a, b)) {
    text += `-${b.letter}${b.n}`;
    end = b.end;
  } else if (!b) {
    const bare = intAt(ctx, end);
    if (bare && ctx.tokens[end]?.kind === 'word' && bare.value === a.n + 1 && adjacent(a, { letter: a.letter, n: bare.value, end: 0 })) {
      text += `-${a.letter}${bare.value}`;
      end = bare.end;
    }
  }
  const suffix = ctx.tokens[end];
  if (a.letter === 'T' && text.length === 2 && suffix && ctx.table.weightingSuffix.includes(suffix.norm)) {
    return { items: [w(`${text}-${suffix.text}`)], end: end + 1 };
  }
  return { items: [w(text)], end };
}

/** Whether a blood-pressure word comes before token i (over fillers). */
function bpTriggered(ctx: Ctx, i: number): boolean {
  const bp = ctx.table.bloodPressure;
  for (let j = i - 1; j >= 0 && j >= i - 4; j--) {
    const n = ctx.tokens[j]!.norm;
    if (bp.triggers.includes(n)) return true;
    if (!bp.fillers.includes(n)) return false;
  }
  return false;
}

/**
 * An integer, or two numbers said as one in English: a first part in [lo, hi] then a two-digit number
 * ("one twenty" = 120 for a blood pressure, "nineteen eighty-three" = 1983 for a year or a section).
 */
function hundredsAt(ctx: Ctx, j: number, enabled: boolean | undefined, lo: number, hi: number): ParsedNumber | null {
  const a = intAt(ctx, j);
  if (!a) return null;
  if (enabled && a.fromWords && a.value >= lo && a.value <= hi) {
    const b = intAt(ctx, a.end);
    if (b && b.fromWords && b.value >= 10 && b.value <= 99) {
      const value = a.value * 100 + b.value;
      return { ...a, value, digits: String(value), end: b.end };
    }
  }
  return a;
}

const systolicAt = (ctx: Ctx, i: number): ParsedNumber | null => hundredsAt(ctx, i, ctx.table.bloodPressure.shortHundreds, 1, 2);
const pairedAt = (ctx: Ctx, j: number): ParsedNumber | null => hundredsAt(ctx, j, ctx.table.numbers.pairedHundreds, 11, 99);

/** "tension à douze huit" → "12/8" (cmHg, never 120/80); "cent vingt sur quatre-vingts millimètres de mercure" → "120/80 mmHg". */
export function bloodPressureAt(ctx: Ctx, i: number): Claim | null {
  const bp = ctx.table.bloodPressure;
  const a = systolicAt(ctx, i);
  if (!a) return null;
  const over = ctx.tokens[a.end];
  const hasOver = !!over && (bp.over.includes(over.norm) || (over.text === '/' && over.kind === 'punct'));
  const b = intAt(ctx, hasOver ? a.end + 1 : a.end);
  if (!b) return null;
  const unit = unitAt(ctx, b.end);
  const mmHg = unit?.out === 'mmHg';
  if (unit && !mmHg) return null; // the number belongs to its unit
  const triggered = bpTriggered(ctx, i);
  const [s, d] = [a.value, b.value];
  const plausible = (s <= 30 && d <= 20 && s > d && (bp.bareInCmHg || hasOver)) || (s >= 50 && s <= 300 && d >= 20 && d < s);
  if (!plausible) return null;
  if (!(triggered || mmHg) || (!hasOver && !triggered)) return null;
  if (!a.fromWords && !b.fromWords && hasOver && over?.text === '/') {
    // Already written "120/80": only the unit's space changes.
    if (!mmHg) return null;
  }
  const items: Item[] = [w(`${s}/${d}`)];
  let end = b.end;
  if (mmHg && unit) {
    items.push(w('mmHg', 'nb'));
    end = unit.end;
  }
  return { items, end };
}

function monthAt(ctx: Ctx, i: number): { index: number; text: string; end: number } | null {
  const t = ctx.tokens[i];
  if (!t || t.kind !== 'word') return null;
  const d = ctx.table.dates;
  const index = d.months.findIndex((forms) => forms.includes(t.norm));
  if (index < 0) return null;
  if (d.caseSensitive?.includes(t.norm) && !/^\p{Lu}/u.test(t.text)) return null;
  return { index, text: t.text, end: i + 1 };
}

function skipJoiners(ctx: Ctx, j: number): number {
  while (ctx.tokens[j] && ctx.table.dates.joiners.includes(ctx.tokens[j]!.norm)) j++;
  return j;
}

/** A year after a month: 1000–2999 ("deux mille vingt-quatre", English "twenty twenty-four"). */
function yearAt(ctx: Ctx, j: number): { y: number; end: number } | null {
  const a = pairedAt(ctx, j);
  return a && a.value >= 1000 && a.value <= 2999 ? { y: a.value, end: a.end } : null;
}

function dayText(ctx: Ctx, d: ParsedNumber): string {
  const special = ctx.table.ordinals.special?.[`${d.value}${d.ord ?? ''}`];
  return d.ord && special ? special : String(d.value);
}

/** "le douze mars deux mille vingt-quatre" → "12 mars 2024"; "March twelfth, twenty twenty four" → "March 12, 2024". */
export function dateAt(ctx: Ctx, i: number): Claim | null {
  const d = ctx.table.dates;
  let day: ParsedNumber | null;
  let month: { index: number; text: string; end: number } | null;
  let j: number;
  if (d.order === 'dmy') {
    day = numberAt(ctx, i);
    if (!day || day.decimal || day.value < 1 || day.value > 31) return null;
    month = monthAt(ctx, skipJoiners(ctx, day.end));
    if (!month) return null;
    j = month.end;
  } else {
    month = monthAt(ctx, i);
    if (!month) return null;
    day = numberAt(ctx, month.end);
    if (!day || day.decimal || day.value < 1 || day.value > 31) return null;
    j = day.end;
  }
  let k = skipJoiners(ctx, j);
  if (ctx.tokens[k]?.text === ',') k++;
  const year = yearAt(ctx, k);
  const fill = (f: string): string =>
    f
      .replace('{d}', dayText(ctx, day))
      .replace('{m}', month.text)
      .replace('{y}', year ? String(year.y) : '');
  const text = fill(year ? d.written.dmy : d.written.dm);
  return { items: text.split(' ').map((x) => w(x)), end: year ? year.end : j };
}

/** "trois virgule deux par deux virgule un centimètres" → "3,2 × 2,1 cm". */
export function dimensionsAt(ctx: Ctx, i: number): Claim | null {
  const nums: ParsedNumber[] = [];
  let j = i;
  let unit: ReturnType<typeof unitAt> = null;
  for (;;) {
    const n = numberAt(ctx, j);
    if (!n || n.ord) return null;
    nums.push(n);
    j = n.end;
    const u = unitAt(ctx, j);
    if (u && !u.percent) {
      unit = u;
      j = u.end;
    }
    const by = ctx.tokens[j];
    if (by && ctx.table.dimensionWords.includes(by.norm) && nums.length < 3 && numberAt(ctx, j + 1)) {
      j++;
      continue;
    }
    break;
  }
  if (nums.length < 2 || !unit) return null;
  const items: Item[] = [];
  nums.forEach((n, k) => {
    if (k > 0) items.push(w('×', 'nb'));
    items.push(w(digitsOf(ctx, n), k > 0 ? 'nb' : ' '));
  });
  items.push(...unitItems(ctx, unit));
  return { items, end: j };
}

/** A number before a unit or "%" is always written in digits: "deux centimètres" → "2 cm". */
export function measureAt(ctx: Ctx, i: number): Claim | null {
  const n = numberAt(ctx, i);
  if (!n || n.ord) return null;
  const u = unitAt(ctx, n.end);
  if (!u) return null;
  return { items: [w(digitsOf(ctx, n)), ...unitItems(ctx, u)], end: u.end };
}

function ordinalText(ctx: Ctx, n: ParsedNumber): string {
  const o = ctx.table.ordinals;
  const special = o.special?.[`${n.value}${n.ord}`];
  if (special) return special;
  if (o.englishSuffix) {
    const v = n.value;
    const s = v % 100 >= 11 && v % 100 <= 13 ? 'th' : (({ 1: 'st', 2: 'nd', 3: 'rd' } as Record<number, string>)[v % 10] ?? 'th');
    return `${v}${s}`;
  }
  return o.format[n.ord ?? 'n'].replace('{n}', String(n.value));
}

/** Ordinals: in digits from 10, and below 10 before the nouns of the table ("quatrième espace intercostal"). */
export function ordinalAt(ctx: Ctx, i: number): Claim | null {
  const n = numberAt(ctx, i);
  if (!n || !n.ord || !n.fromWords) return null;
  const next = ctx.tokens[n.end];
  if (n.value < 10 && !(next && ctx.table.ordinals.nouns.includes(next.norm))) return null;
  return { items: [w(ordinalText(ctx, n))], end: n.end };
}
