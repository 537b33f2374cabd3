/**
 * ARPA back-off language models (up to trigrams) read into memory and written back, for `lm adapt`
 * (interpolate.ts). The format as SRILM's ngram-format(5) and pocketsphinx's `ngram_model_arpa`
 * read it: a `\data\` header with `ngram N=count` lines, then one `\N-grams:` section per order
 * whose lines are `log10(p) <TAB> w1 … wN [<TAB> log10(backoff)]`, then `\end\`. A backoff that is
 * absent is 0 (log10 of 1). A malformed file is refused with its line number, before anything uses it.
 */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { ArpaError } from './arpa';


/** Bits per word id in a packed n-gram key (three ids stay below 2^53). */
const ID_BITS = 17;
const KEY_BASE = 2 ** ID_BITS;
export const MAX_ARPA_WORDS = KEY_BASE - 1;
const MAX_ORDER = 3;

export interface Gram {
  /** log10 probability. */
  p: number;
  /** log10 backoff weight (0 when the file gives none). */
  bow: number;
}

export interface ArpaModel {
  order: number;
  /** Words by id, in the order of the 1-gram section. */
  words: string[];
  index: Map<string, number>;
  /** The n-grams of each order (index 0: unigrams), keyed by {@link pack}. */
  grams: Array<Map<number, Gram>>;
}

export const pack = (ids: readonly number[]): number => ids.reduce((k, id) => k * KEY_BASE + id, 0);

export function unpack(k: number, n: number): number[] {
  const out = new Array<number>(n);
  for (let i = n - 1; i >= 0; i--) {
    out[i] = k % KEY_BASE;
    k = Math.floor(k / KEY_BASE);
  }
  return out;
}

/** An ARPA model being read, line by line (`where` names the source in errors). */
class ArpaReader {
  private state: 'start' | 'header' | 'body' | 'end' = 'start';
  private counts: number[] = [];
  private n = 0;
  private readonly m: ArpaModel = { order: 0, words: [], index: new Map(), grams: [] };
  private lineNo = 0;

  constructor(private readonly where: string) {}

  private fail(why: string): never {
    throw new ArpaError(`${this.where}, line ${this.lineNo}: ${why}; not an ARPA language model this command can read`);
  }

  line(raw: string): void {
    this.lineNo++;
    const line = raw.trim();
    if (this.state === 'start') {
      if (line === '\\data\\') this.state = 'header';
      return; // SRILM allows text before \data\
    }
    if (line === '') return;
    if (this.state === 'end') this.fail('text after \\end\\');
    if (this.state === 'header') {
      const c = /^ngram (\d+)\s*=\s*(\d+)$/u.exec(line);
      if (c) {
        if (Number(c[1]) !== this.counts.length + 1) this.fail(`"${line}" out of order`);
        if (Number(c[1]) > MAX_ORDER) this.fail(`order ${c[1]!} (at most ${MAX_ORDER} is read)`);
        this.counts.push(Number(c[2]));
        return;
      }
      if (this.counts.length === 0) this.fail('no "ngram N=count" line after \\data\\');
      this.state = 'body';
      this.m.order = this.counts.length;
      if (this.counts[0]! > MAX_ARPA_WORDS) this.fail(`${this.counts[0]!} words (at most ${MAX_ARPA_WORDS})`);
    }
    const section = /^\\(\d+)-grams:$/u.exec(line);
    if (section) {
      this.close();
      this.n = Number(section[1]);
      if (this.n !== this.m.grams.length + 1 || this.n > this.m.order) this.fail(`section ${line} unexpected`);
      this.m.grams.push(new Map());
      return;
    }
    if (line === '\\end\\') {
      this.close();
      if (this.m.grams.length !== this.m.order) this.fail(`\\end\\ after ${this.m.grams.length} of ${this.m.order} sections`);
      this.state = 'end';
      return;
    }
    if (this.n === 0) this.fail(`"${line.slice(0, 40)}" outside any section`);
    const f = line.split(/\s+/u);
    const n = this.n;
    if (f.length !== n + 1 && f.length !== n + 2) this.fail(`a ${n}-gram line needs ${n + 1} or ${n + 2} fields, ${f.length} found`);
    const p = Number(f[0]);
    const bow = f.length === n + 2 ? Number(f[n + 1]) : 0;
    if (!Number.isFinite(p) || p > 0 || !Number.isFinite(bow)) this.fail(`"${f[0]!}" is not a log10 probability`);
    const ws = f.slice(1, n + 1);
    if (n === 1) {
      if (this.m.index.has(ws[0]!)) this.fail(`the word "${ws[0]!}" is listed twice`);
      this.m.index.set(ws[0]!, this.m.words.length);
      this.m.words.push(ws[0]!);
    }
    const ids = ws.map((w) => this.m.index.get(w) ?? this.fail(`the word "${w}" is not among the 1-grams`));
    const key = pack(ids);
    const grams = this.m.grams[n - 1]!;
    if (n > 1 && grams.has(key)) this.fail(`the ${n}-gram "${ws.join(' ')}" is listed twice`);
    grams.set(key, { p, bow });
  }

  private close(): void {
    if (this.n > 0 && this.m.grams[this.n - 1]!.size !== this.counts[this.n - 1]) {
      this.fail(`${this.m.grams[this.n - 1]!.size} ${this.n}-grams listed, the header says ${this.counts[this.n - 1]!}`);
    }
  }

  done(): ArpaModel {
    if (this.state !== 'end') this.fail(this.state === 'start' ? 'no \\data\\ line' : 'no \\end\\ line (truncated?)');
    return this.m;
  }
}

/** Reads an ARPA model from text. */
export function parseArpa(text: string, where = 'the model'): ArpaModel {
  const r = new ArpaReader(where);
  for (const l of text.split('\n')) r.line(l);
  return r.done();
}

/** Reads an ARPA model from a file, streamed. */
export async function readArpaFile(file: string): Promise<ArpaModel> {
  const r = new ArpaReader(file);
  const input = createReadStream(file, { encoding: 'utf8' });
  const lines = createInterface({ input, crlfDelay: Infinity });
  try {
    for await (const l of lines) r.line(l);
  } finally {
    lines.close();
    input.destroy();
  }
  return r.done();
}

/**
 * log10 p(w | ctx) by the back-off rule: the longest n-gram `ctx w` listed gives its probability,
 * plus the backoff weights of the contexts left out on the way (0 for a context not listed).
 * `ctx` holds at most order−1 ids, oldest first; an id of −1 (a word the model lacks) cuts the context there.
 * Returns −Infinity for a word the model lacks.
 */
export function logProb(m: ArpaModel, ctx: readonly number[], w: number): number {
  if (w < 0) return -Infinity;
  let start = Math.max(0, ctx.length - (m.order - 1));
  const cut = ctx.lastIndexOf(-1);
  if (cut >= start) start = cut + 1;
  let backoff = 0;
  for (let s = start; s <= ctx.length; s++) {
    const h = ctx.slice(s);
    const g = m.grams[h.length]!.get(pack([...h, w]));
    if (g) return g.p + backoff;
    if (h.length > 0) backoff += m.grams[h.length - 1]!.get(pack(h))?.bow ?? 0;
  }
  return -Infinity;
}

const num = (x: number): string => (x <= -99 ? '-99' : x.toFixed(6).replace(/^-0\.000000$/u, '0.000000'));

/** The model as ARPA text, each order's n-grams by key (deterministic), written in pieces to `write`. */
export function writeArpaModel(m: ArpaModel, write: (s: string) => void): void {
  const sorted = m.grams.map((g) => [...g.keys()].sort((a, b) => a - b));
  write('\\data\\\n');
  sorted.forEach((keys, i) => write(`ngram ${i + 1}=${keys.length}\n`));
  sorted.forEach((keys, i) => {
    const n = i + 1;
    write(`\n\\${n}-grams:\n`);
    let buf = '';
    for (const k of keys) {
      const g = m.grams[i]!.get(k)!;
      const text = unpack(k, n)
        .map((id) => m.words[id]!)
        .join(' ');
      buf += `${num(g.p)}\t${text}${n < m.order ? `\t${num(g.bow)}` : ''}\n`;
      if (buf.length > 1 << 16) {
        write(buf);
        buf = '';
      }
    }
    write(buf);
  });
  write('\n\\end\\\n');
}
