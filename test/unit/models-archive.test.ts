/**
 * Hostile archives, made here byte by byte (a small ustar writer below; bzip2 and gzip applied to
 * them), never committed: paths that leave the target (`..`, absolute, through a pax or GNU long
 * name), links, devices, fifos, a bzip2 bomb, too many entries, a truncated or corrupt archive.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import type { CatalogueEntry } from '../../src/server/engine/sherpa/catalogue';
import { ArchiveRefusedError, DEFAULT_LIMITS } from '../../src/models/archive';
import { extractModel } from '../../src/models/install';

interface E {
  name: string;
  type?: string;
  data?: Buffer;
  linkname?: string;
  /** Declared size, when it must differ from the data (a truncated archive). */
  size?: number;
}

function header(e: E, size: number): Buffer {
  const h = Buffer.alloc(512);
  const put = (s: string, off: number, len: number): void => void h.write(s.slice(0, len), off, 'utf8');
  put(e.name, 0, 100);
  put('0000644\0', 100, 8);
  put('0000000\0', 108, 8);
  put('0000000\0', 116, 8);
  put(`${size.toString(8).padStart(11, '0')}\0`, 124, 12);
  put('00000000000\0', 136, 12);
  put(e.type ?? '0', 156, 1);
  put(e.linkname ?? '', 157, 100);
  put('ustar\0', 257, 6);
  put('00', 263, 2);
  h.fill(0x20, 148, 156);
  let sum = 0;
  for (const b of h) sum += b;
  put(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 8);
  return h;
}

function tar(entries: E[]): Buffer {
  const parts: Buffer[] = [];
  for (const e of entries) {
    const data = e.data ?? Buffer.alloc(0);
    parts.push(header(e, e.size ?? data.length), data, Buffer.alloc((512 - (data.length % 512)) % 512));
  }
  parts.push(Buffer.alloc(1024));
  return Buffer.concat(parts);
}

function pax(records: Record<string, string>): Buffer {
  return Buffer.from(
    Object.entries(records)
      .map(([k, v]) => {
        const body = ` ${k}=${v}\n`;
        let len = body.length + 1;
        while (`${len}${body}`.length !== len) len++;
        return `${len}${body}`;
      })
      .join(''),
  );
}

const FILES = {
  'encoder.onnx': Buffer.alloc(3000, 1),
  'decoder.onnx': Buffer.alloc(700, 2),
  'joiner.onnx': Buffer.alloc(600, 3),
  'tokens.txt': Buffer.from('a 0\nb 1\n'),
};
const ENTRY: CatalogueEntry = {
  name: 'm',
  kind: 'online',
  languages: ['fr'],
  perStreamLanguage: false,
  punctuates: false,
  featureDim: 80,
  licence: 'test',
  hfRepo: 'x/m',
  revision: 'main',
  archiveUrl: 'https://example.invalid/m.tar.bz2',
  archiveSize: null,
  files: Object.entries(FILES).map(([p, b]) => ({
    role: p.split('.')[0] === 'tokens' ? 'tokens' : (p.split('.')[0] as 'encoder'),
    path: p,
    size: b.length,
    sha256: null,
  })),
};
const good = (): E[] => [
  { name: 'm/', type: '5' },
  ...Object.entries(FILES).map(([f, data]) => ({ name: `m/${f}`, data })),
  { name: 'm/test_wavs/fr.wav', data: Buffer.alloc(100) },
];

describe('models: archives are read entry by entry and hostile ones refused', () => {
  const work = mkdtempSync(path.join(os.tmpdir(), 'dictee-archive-'));
  let n = 0;
  const write = (bytes: Buffer, compress: 'bz2' | 'gz' | 'none' = 'bz2'): string => {
    const f = path.join(work, `a${n++}.tar`);
    writeFileSync(f, compress === 'gz' ? gzipSync(bytes) : bytes);
    if (compress !== 'bz2') return f;
    execFileSync('bzip2', ['-f', f]);
    return `${f}.bz2`;
  };
  const target = (): string => {
    const d = path.join(work, `t${n++}`, 'stage');
    mkdirSync(d, { recursive: true });
    return d;
  };
  const refused = async (archive: string, re: RegExp, limits = DEFAULT_LIMITS): Promise<void> => {
    const stage = target();
    await assert.rejects(
      extractModel(archive, ENTRY, stage, limits),
      (e: Error) => (e instanceof ArchiveRefusedError || e.name === 'ModelInstallError') && re.test(e.message),
    );
    assert.deepEqual(readdirSync(path.dirname(stage)), ['stage'], 'nothing written beside the target');
  };

  it('a well-formed .tar.bz2, .tar.gz or .tar: only the model files are written', async () => {
    for (const c of ['bz2', 'gz', 'none'] as const) {
      const stage = target();
      await extractModel(write(tar(good()), c), ENTRY, stage);
      assert.deepEqual(readdirSync(stage).sort(), Object.keys(FILES).sort());
      assert.deepEqual(readFileSync(path.join(stage, 'encoder.onnx')), FILES['encoder.onnx']);
    }
  });

  it('refuses entries whose path leaves the target: .., absolute, through a pax path or a GNU long name', async () => {
    await refused(write(tar([...good(), { name: '../evil', data: Buffer.from('x') }])), /entry "\.\.\/evil" leaves the target directory/);
    await refused(write(tar([{ name: '/tmp/evil', data: Buffer.from('x') }, ...good()])), /entry "\/tmp\/evil" leaves the target/);
    await refused(write(tar([{ name: 'm/../../evil', data: Buffer.from('x') }, ...good()])), /leaves the target/);
    await refused(
      write(
        tar([
          { name: 'PaxHeader', type: 'x', data: pax({ path: '../../pax-evil' }) },
          { name: 'benign', data: Buffer.from('x') },
          ...good(),
        ]),
      ),
      /"\.\.\/\.\.\/pax-evil" leaves the target/,
    );
    await refused(
      write(
        tar([
          { name: '././@LongLink', type: 'L', data: Buffer.from(`${'d/'.repeat(60)}../../../long-evil\0`) },
          { name: 'benign', data: Buffer.from('x') },
          ...good(),
        ]),
      ),
      /long-evil" leaves the target/,
    );
    assert.equal(existsSync(path.join(work, 'evil')), false);
  });

  it('refuses symbolic and hard links, devices, fifos and unknown entry types', async () => {
    await refused(
      write(tar([...good(), { name: 'm/link', type: '2', linkname: '/etc/passwd' }])),
      /"m\/link" is a symbolic link \(to "\/etc\/passwd"\); links are refused/,
    );
    await refused(write(tar([{ name: 'm/joiner.onnx', type: '1', linkname: 'm/encoder.onnx' }, ...good()])), /is a hard link/);
    await refused(write(tar([...good(), { name: 'm/dev', type: '3' }])), /"m\/dev" is a device/);
    await refused(write(tar([...good(), { name: 'm/blk', type: '4' }])), /is a device/);
    await refused(write(tar([...good(), { name: 'm/fifo', type: '6' }])), /"m\/fifo" is a fifo/);
    await refused(write(tar([...good(), { name: 'm/odd', type: 'Z' }])), /unknown type/);
  });

  it('refuses archives beyond the size bounds: the file, what it expands to (a bzip2 bomb), the number of entries', async () => {
    const a = write(tar(good()));
    await refused(a, /has \d+ bytes, more than the 100 accepted/, { ...DEFAULT_LIMITS, maxArchiveBytes: 100 });
    const bomb = write(tar([{ name: 'm/zeros', data: Buffer.alloc(20 * 2 ** 20) }, ...good()]));
    assert.ok(readFileSync(bomb).length < 10_000, 'the bomb is small');
    await refused(bomb, /expands beyond 1048576 bytes; refused/, { ...DEFAULT_LIMITS, maxExpandedBytes: 2 ** 20 });
    const many = write(tar([...Array.from({ length: 20 }, (_, i) => ({ name: `m/f${i}`, data: Buffer.from('x') })), ...good()]));
    await refused(many, /more than 10 entries; refused/, { ...DEFAULT_LIMITS, maxEntries: 10 });
  });

  it('refuses a truncated archive, a corrupt header, a file given twice, a missing file, and what bzip2 cannot read', async () => {
    const whole = tar(good());
    await refused(write(whole.subarray(0, 2000), 'none'), /ends in the middle of an entry \(truncated\)/);
    const bad = Buffer.from(whole);
    bad[520] = bad[520]! ^ 0xff; // inside the second header's name
    await refused(write(bad), /not a tar archive \(a header's checksum is wrong\)/);
    await refused(write(tar([...good(), { name: 'm/tokens.txt', data: Buffer.from('again') }])), /holds tokens\.txt twice; refused/);
    await refused(write(tar(good().filter((e) => !e.name.endsWith('joiner.onnx')))), /lacks joiner\.onnx; nothing was installed/);
    const notBz = path.join(work, 'fake.tar.bz2');
    writeFileSync(notBz, Buffer.concat([Buffer.from('BZh9'), Buffer.alloc(100, 7)]));
    await refused(notBz, /is not a readable bzip2 archive/);
  });
});
