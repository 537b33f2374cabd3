/**
 * An ARPA language model checked line by line before a decoder reads it (pure: no I/O, so that the
 * `lm check` command and the service both feed it lines). What it refuses, with the line's number:
 * no `\data\` header, an `ngram N=C` count that is not a whole number or out of order, sections out of
 * order or missing, a line with the wrong number of words or fields, a log10 probability that is not
 * a number ≤ 0 (or a backoff that is not finite, or one on the highest order), a word in a higher order
 * that the unigrams lack, no `<s>` or `</s>`, a section whose lines disagree with its header count,
 * and a file that ends without `\end\`.
 */

export class ArpaError extends Error {
  override readonly name = 'ArpaError';
}

interface ArpaSummary {
  /** N-grams listed per order (1-grams first), equal to the header's counts. */
  counts: number[];
}

const NUMBER = /^[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?$/u;

export class ArpaChecker {
  private state: 'start' | 'header' | 'section' | 'done' = 'start';
  private lineNo = 0;
  private readonly header: number[] = [];
  private order = 0;
  private seen = 0;
  private readonly unigrams = new Set<string>();

  constructor(private readonly name = 'the ARPA file') {}

  private fail(msg: string): never {
    throw new ArpaError(`${this.name}, line ${this.lineNo}: ${msg}`);
  }

  /** Feeds one line (without its line break). */
  line(raw: string): void {
    this.lineNo++;
    const l = raw.trim();
    if (this.state === 'done') {
      if (l !== '') this.fail('text after \\end\\');
      return;
    }
    if (l === '') return;
    if (this.state === 'start') {
      if (l !== '\\data\\') this.fail(`expected \\data\\ (not an ARPA language model): ${JSON.stringify(l.slice(0, 40))}`);
      this.state = 'header';
      return;
    }
    if (this.state === 'header') {
      const m = /^ngram\s+(\d+)\s*=\s*(\d+)$/u.exec(l);
      if (m) {
        if (Number(m[1]) !== this.header.length + 1) this.fail(`ngram ${m[1]} where ngram ${this.header.length + 1} was expected`);
        this.header.push(Number(m[2]));
        return;
      }
      if (l.startsWith('ngram')) this.fail(`a malformed count line: ${JSON.stringify(l.slice(0, 40))}`);
      if (this.header.length === 0) this.fail('no "ngram N=count" line after \\data\\');
      this.state = 'section';
    }
    const sec = /^\\(\d+)-grams:$/u.exec(l);
    if (sec) {
      this.closeSection();
      if (Number(sec[1]) !== this.order + 1) this.fail(`\\${sec[1]}-grams: where \\${this.order + 1}-grams: was expected`);
      this.order++;
      if (this.order > this.header.length) this.fail(`\\${this.order}-grams: but the header counts only ${this.header.length} orders`);
      this.seen = 0;
      return;
    }
    if (l === '\\end\\') {
      this.closeSection();
      if (this.order !== this.header.length) this.fail(`\\end\\ after ${this.order} of the header's ${this.header.length} orders`);
      if (!this.unigrams.has('<s>') || !this.unigrams.has('</s>')) this.fail('the unigrams lack <s> or </s>');
      this.state = 'done';
      return;
    }
    if (this.order === 0) this.fail(`expected \\1-grams: here: ${JSON.stringify(l.slice(0, 40))}`);
    this.entry(l);
  }

  private entry(l: string): void {
    const n = this.order;
    const f = l.split(/\s+/u);
    if (f.length !== n + 1 && f.length !== n + 2)
      this.fail(`a ${n}-gram line needs a probability, ${n} words and an optional backoff; it has ${f.length} fields`);
    if (f.length === n + 2 && n === this.header.length) this.fail(`a backoff weight on the highest order (${n})`);
    const p = f[0]!;
    if (!NUMBER.test(p) || Number(p) > 0) this.fail(`the log10 probability ${JSON.stringify(p.slice(0, 20))} is not a number ≤ 0`);
    if (f.length === n + 2 && !NUMBER.test(f[n + 1]!)) this.fail(`the backoff ${JSON.stringify(f[n + 1]!.slice(0, 20))} is not a number`);
    if (n === 1) this.unigrams.add(f[1]!);
    else
      for (let i = 1; i <= n; i++)
        if (!this.unigrams.has(f[i]!)) this.fail(`the word ${JSON.stringify(f[i]!.slice(0, 40))} is not among the unigrams`);
    this.seen++;
    if (this.seen > this.header[n - 1]!) this.fail(`more ${n}-grams than the header's ${this.header[n - 1]}`);
  }

  private closeSection(): void {
    if (this.order > 0 && this.seen !== this.header[this.order - 1]) {
      this.fail(`the header counts ${this.header[this.order - 1]} ${this.order}-grams, the section lists ${this.seen}`);
    }
  }

  /** At the end of the file: the summary, or an error when `\end\` never came. */
  end(): ArpaSummary {
    if (this.state !== 'done') {
      if (this.state === 'start') throw new ArpaError(`${this.name} is empty: not an ARPA language model`);
      throw new ArpaError(`${this.name} ends without \\end\\ (truncated?) after ${this.lineNo} lines`);
    }
    return { counts: [...this.header] };
  }
}

/** Checks a whole ARPA text (small models; a file is better fed line by line). */
export function checkArpa(text: string, name?: string): ArpaSummary {
  const c = new ArpaChecker(name);
  for (const l of text.split('\n')) c.line(l);
  return c.end();
}
