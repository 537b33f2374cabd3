/**
 * Reading a model's release archive (`.tar.bz2`, also `.tar.gz` and `.tar`) without trusting it:
 * every entry's header is read here (POSIX ustar, pax and GNU long names) before anything is
 * written, and only the model's own files are written, each at a path this code chose. An entry
 * whose path leaves the target (`..`, absolute), a link (symbolic or hard), a device or a fifo, an
 * entry of an unknown type, and an archive beyond the size bounds make the whole archive refused.
 * bzip2 is decompressed by the system's `bzip2` (as `tar -j` would).
 */
import { spawn } from 'node:child_process';
import { closeSync, createReadStream, openSync, readSync, statSync, writeSync } from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { safeRelative } from '../server/engine/sherpa/model';

export class ArchiveRefusedError extends Error {
  override readonly name = 'ArchiveRefusedError';
}

export interface ArchiveLimits {
  /** Bytes of the archive file itself. */
  maxArchiveBytes: number;
  /** Bytes once decompressed (a bzip2 bomb stops here). */
  maxExpandedBytes: number;
  maxEntries: number;
}

export const DEFAULT_LIMITS: ArchiveLimits = { maxArchiveBytes: 4 * 2 ** 30, maxExpandedBytes: 8 * 2 ** 30, maxEntries: 10_000 };

/** One entry as its header says. */
interface TarEntry {
  name: string;
  type: 'file' | 'directory' | 'symlink' | 'hardlink' | 'device' | 'fifo' | 'other';
  size: number;
  linkname: string;
}

function decompressed(file: string): { stream: Readable; done: (abandoned: boolean) => Promise<void> } {
  const fd = openSync(file, 'r');
  const magic = Buffer.alloc(3);
  readSync(fd, magic, 0, 3, 0);
  closeSync(fd);
  if (magic.toString('latin1') === 'BZh') {
    const child = spawn('bzip2', ['-dc', file], { stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const exited = new Promise<void>((resolve, reject) => {
      child.on('error', (e) =>
        reject(
          new ArchiveRefusedError(
            `cannot run bzip2 to read ${path.basename(file)}: ${e.message}; install bzip2, or unpack it yourself and import the directory`,
          ),
        ),
      );
      child.on('close', (code, signal) =>
        code === 0 || signal === 'SIGTERM'
          ? resolve()
          : reject(new ArchiveRefusedError(`${path.basename(file)} is not a readable bzip2 archive: ${err.trim().split('\n')[0] ?? code}`)),
      );
    });
    return {
      stream: child.stdout,
      done: (abandoned) => {
        if (!abandoned) return exited;
        child.kill();
        return exited.catch(() => {}); // it was stopped: its complaint about the closed pipe is no news
      },
    };
  }
  const src = createReadStream(file);
  const close = async (): Promise<void> => void src.destroy();
  if (magic[0] === 0x1f && magic[1] === 0x8b) return { stream: src.pipe(createGunzip()), done: close };
  return { stream: src, done: close };
}

function field(h: Buffer, start: number, len: number): string {
  const b = h.subarray(start, start + len);
  const z = b.indexOf(0);
  return b.subarray(0, z < 0 ? len : z).toString('utf8');
}

function octal(h: Buffer, start: number, len: number): number {
  if (h[start]! & 0x80) {
    // base-256 (GNU) for large sizes
    let n = 0;
    for (let i = start + 1; i < start + len; i++) n = n * 256 + h[i]!;
    return n;
  }
  const s = field(h, start, len).trim();
  return s ? parseInt(s, 8) : 0;
}

function checksumOk(h: Buffer): boolean {
  let sum = 0;
  for (let i = 0; i < 512; i++) sum += i >= 148 && i < 156 ? 32 : h[i]!;
  return sum === octal(h, 148, 8);
}

function typeOf(flag: string): TarEntry['type'] {
  switch (flag) {
    case '0':
    case '':
    case '7':
      return 'file';
    case '5':
      return 'directory';
    case '2':
      return 'symlink';
    case '1':
      return 'hardlink';
    case '3':
    case '4':
      return 'device';
    case '6':
      return 'fifo';
    default:
      return 'other';
  }
}

function paxRecords(data: Buffer): Record<string, string> {
  const out: Record<string, string> = {};
  let i = 0;
  while (i < data.length) {
    const sp = data.indexOf(0x20, i);
    if (sp < 0) break;
    const len = parseInt(data.subarray(i, sp).toString('latin1'), 10);
    if (!(len > 0)) break;
    const rec = data.subarray(sp + 1, i + len - 1).toString('utf8');
    const eq = rec.indexOf('=');
    if (eq > 0) out[rec.slice(0, eq)] = rec.slice(eq + 1);
    i += len;
  }
  return out;
}

/**
 * Reads the archive entry by entry. `onEntry` returns a file descriptor to write the entry's bytes
 * to, or undefined to skip them; it throws to refuse the archive.
 */
export async function readTar(file: string, limits: ArchiveLimits, onEntry: (e: TarEntry) => number | undefined): Promise<void> {
  const size = statSync(file).size;
  if (size > limits.maxArchiveBytes)
    throw new ArchiveRefusedError(
      `${path.basename(file)} has ${size} bytes, more than the ${limits.maxArchiveBytes} accepted for a model archive`,
    );
  const { stream, done } = decompressed(file);
  let buf: Buffer = Buffer.alloc(0);
  let expanded = 0;
  let entries = 0;
  let pending:
    { remaining: number; pad: number; fd: number | undefined; meta?: 'pax' | 'longname' | 'longlink'; data?: Buffer[] } | undefined;
  let next: { path?: string; linkpath?: string; size?: number } = {};
  let ended = false;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      expanded += chunk.length;
      if (expanded > limits.maxExpandedBytes)
        throw new ArchiveRefusedError(`${path.basename(file)} expands beyond ${limits.maxExpandedBytes} bytes; refused`);
      buf = buf.length ? Buffer.concat([buf, chunk]) : chunk;
      for (;;) {
        if (pending) {
          if (pending.remaining > 0) {
            const n = Math.min(pending.remaining, buf.length);
            if (n === 0) break;
            const part = buf.subarray(0, n);
            if (pending.fd !== undefined) writeSync(pending.fd, part);
            if (pending.data) pending.data.push(Buffer.from(part));
            pending.remaining -= n;
            buf = buf.subarray(n);
            if (pending.remaining > 0) break;
          }
          if (buf.length < pending.pad) break;
          buf = buf.subarray(pending.pad);
          if (pending.meta) {
            const data = Buffer.concat(pending.data ?? []);
            if (pending.meta === 'pax') {
              const r = paxRecords(data);
              if (r.path !== undefined) next.path = r.path;
              if (r.linkpath !== undefined) next.linkpath = r.linkpath;
              if (r.size !== undefined) next.size = Number(r.size);
            } else if (pending.meta === 'longname') next.path = field(data, 0, data.length);
            else next.linkpath = field(data, 0, data.length);
          }
          pending = undefined;
          continue;
        }
        if (ended || buf.length < 512) break;
        const h = buf.subarray(0, 512);
        buf = buf.subarray(512);
        if (h.every((b) => b === 0)) {
          ended = true; // end of archive (what follows is padding)
          break;
        }
        if (!checksumOk(h)) throw new ArchiveRefusedError(`${path.basename(file)} is not a tar archive (a header's checksum is wrong)`);
        if (++entries > limits.maxEntries)
          throw new ArchiveRefusedError(`${path.basename(file)} has more than ${limits.maxEntries} entries; refused`);
        const flag = String.fromCharCode(h[156]!).replace('\0', '');
        const bodySize = next.size ?? octal(h, 124, 12);
        const pad = (512 - (bodySize % 512)) % 512;
        if (flag === 'x' || flag === 'g' || flag === 'L' || flag === 'K') {
          if (bodySize > 1 << 20)
            throw new ArchiveRefusedError(`${path.basename(file)} has an extended header of ${bodySize} bytes; refused`);
          const meta = flag === 'x' ? 'pax' : flag === 'L' ? 'longname' : flag === 'K' ? 'longlink' : undefined;
          pending = { remaining: bodySize, pad, fd: undefined, ...(meta ? { meta, data: [] } : {}) };
          continue;
        }
        const prefix = field(h, 345, 155);
        const ustarName = field(h, 0, 100);
        const entry: TarEntry = {
          name: next.path ?? (prefix && field(h, 257, 5) === 'ustar' ? `${prefix}/${ustarName}` : ustarName),
          type: typeOf(flag),
          size: bodySize,
          linkname: next.linkpath ?? field(h, 157, 100),
        };
        next = {};
        const fd = onEntry(entry);
        pending = { remaining: entry.type === 'file' ? bodySize : 0, pad: entry.type === 'file' ? pad : 0, fd };
        if (entry.type !== 'file' && bodySize > 0) pending = { remaining: bodySize, pad, fd: undefined };
      }
      if (ended) break;
    }
    if (pending && pending.remaining > 0)
      throw new ArchiveRefusedError(`${path.basename(file)} ends in the middle of an entry (truncated)`);
  } catch (e) {
    stream.destroy();
    await done(true);
    throw e;
  }
  stream.destroy();
  await done(ended); // read to its end: bzip2's own verdict counts (a corrupt stream)
}

/** An entry's path with a leading `./` removed; throws when it would leave the target. */
export function entryPath(e: TarEntry, archive: string): string {
  const name = e.name.replace(/^(\.\/)+/, '').replace(/\/+$/, '');
  if (name === '' || name === '.') return '';
  if (!safeRelative(name))
    throw new ArchiveRefusedError(
      `${path.basename(archive)}: the entry ${JSON.stringify(e.name)} leaves the target directory; the archive is refused`,
    );
  if (e.type === 'symlink' || e.type === 'hardlink')
    throw new ArchiveRefusedError(
      `${path.basename(archive)}: ${JSON.stringify(e.name)} is a ${e.type === 'symlink' ? 'symbolic' : 'hard'} link (to ${JSON.stringify(e.linkname)}); links are refused`,
    );
  if (e.type === 'device' || e.type === 'fifo')
    throw new ArchiveRefusedError(`${path.basename(archive)}: ${JSON.stringify(e.name)} is a ${e.type}; the archive is refused`);
  if (e.type === 'other')
    throw new ArchiveRefusedError(
      `${path.basename(archive)}: ${JSON.stringify(e.name)} is an entry of an unknown type; the archive is refused`,
    );
  return name;
}
