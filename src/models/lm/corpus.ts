/**
 * A text corpus read line by line in bounded memory (plain, or gzip by its magic bytes): bytes that are
 * not UTF-8 are skipped and counted, never guessed at. A file that looks binary (NUL bytes, or mostly
 * not UTF-8 in its first 64 KiB) is refused before anything is counted.
 */
import { isUtf8 } from 'node:buffer';
import { createReadStream, existsSync, statSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { createGunzip } from 'node:zlib';

export class CorpusError extends Error {
  override readonly name = 'CorpusError';
}

interface CorpusStats {
  lines: number;
  /** Bytes dropped because they were not part of a valid UTF-8 sequence. */
  invalidBytes: number;
}

/** Longest line kept (longer ones are cut there: a corpus without line breaks cannot fill memory). */
const MAX_LINE_BYTES = 1 << 20;
const SNIFF_BYTES = 1 << 16;

/** Copies the valid UTF-8 of `b` into a string; returns it and the number of bytes dropped. */
export function validUtf8(b: Buffer): { text: string; dropped: number } {
  if (isUtf8(b)) return { text: b.toString('utf8'), dropped: 0 };
  const out = Buffer.allocUnsafe(b.length);
  let o = 0;
  let dropped = 0;
  for (let i = 0; i < b.length;) {
    const c = b[i]!;
    let n = 0;
    let min = 0;
    if (c < 0x80) n = 1;
    else if (c >= 0xc2 && c <= 0xdf) ((n = 2), (min = 0x80));
    else if (c >= 0xe0 && c <= 0xef) ((n = 3), (min = 0x800));
    else if (c >= 0xf0 && c <= 0xf4) ((n = 4), (min = 0x10000));
    let ok = n > 0 && i + n <= b.length;
    if (ok && n > 1) {
      let cp = c & (0xff >> (n + 1));
      for (let k = 1; k < n; k++) {
        const d = b[i + k]!;
        if ((d & 0xc0) !== 0x80) {
          ok = false;
          break;
        }
        cp = (cp << 6) | (d & 0x3f);
      }
      if (ok && (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))) ok = false;
    }
    if (ok) {
      for (let k = 0; k < n; k++) out[o++] = b[i + k]!;
      i += n;
    } else {
      dropped++;
      i++;
    }
  }
  return { text: out.toString('utf8', 0, o), dropped };
}

async function isGzip(file: string): Promise<boolean> {
  const fh = await open(file, 'r');
  try {
    const b = Buffer.alloc(2);
    const { bytesRead } = await fh.read(b, 0, 2, 0);
    return bytesRead === 2 && b[0] === 0x1f && b[1] === 0x8b;
  } finally {
    await fh.close();
  }
}

/** Reads `file`'s lines (valid UTF-8 only), calling `onLine` for each; returns what was read. */
export async function readCorpus(file: string, onLine: (line: string) => void): Promise<CorpusStats> {
  if (!existsSync(file) || !statSync(file).isFile()) throw new CorpusError(`${file} is not a file`);
  const gz = await isGzip(file);
  const raw = createReadStream(file);
  const stream = gz ? raw.pipe(createGunzip()) : raw;
  const stats: CorpusStats = { lines: 0, invalidBytes: 0 };
  let carry: Buffer = Buffer.alloc(0);
  let sniffed = 0;
  let sniffBad = 0;
  let sniffNul = false;
  const line = (b: Buffer): void => {
    const { text, dropped } = validUtf8(b.length > MAX_LINE_BYTES ? b.subarray(0, MAX_LINE_BYTES) : b);
    if (sniffed < SNIFF_BYTES) {
      sniffed += b.length + 1;
      sniffBad += dropped;
      if (b.includes(0)) sniffNul = true;
      if (sniffed >= SNIFF_BYTES || stats.lines === 0) checkText();
    }
    stats.invalidBytes += dropped;
    stats.lines++;
    onLine(text);
  };
  const checkText = (): void => {
    if (sniffNul || (sniffed > 64 && sniffBad / sniffed > 0.3)) {
      throw new CorpusError(`${file} looks binary (${sniffNul ? 'NUL bytes' : 'mostly not UTF-8'}), not a text corpus; nothing was built`);
    }
  };
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      let buf = carry.length ? Buffer.concat([carry, chunk]) : chunk;
      let start = 0;
      for (let nl = buf.indexOf(10, start); nl >= 0; nl = buf.indexOf(10, start)) {
        line(buf.subarray(start, nl > start && buf[nl - 1] === 13 ? nl - 1 : nl));
        start = nl + 1;
      }
      buf = buf.subarray(start);
      // A line without end beyond the bound: cut, its rest dropped up to the next line break.
      carry = buf.length > MAX_LINE_BYTES ? Buffer.from(buf.subarray(0, MAX_LINE_BYTES)) : Buffer.from(buf);
    }
    if (carry.length) line(carry);
    checkText();
  } catch (e) {
    stream.destroy();
    raw.destroy();
    if (e instanceof CorpusError) throw e;
    throw new CorpusError(`cannot read ${file}${gz ? ' (gzip)' : ''}: ${(e as Error).message}`);
  }
  return stats;
}
