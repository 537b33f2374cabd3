/**
 * A model's `tokens.txt` checked against the model before any native code reads either: every id from 0
 * to the vocabulary's last, each once, and as many as the model can emit (the `vocab_size` its ONNX
 * metadata declares: the NeMo encoder's, blank excluded, so one more line; else the Zipformer decoder's).
 * sherpa-onnx looks each emitted id up in that table: a token the model can emit but the file lacks is
 * no error there, it becomes wrong or missing text (or a crash) in the middle of a dictation.
 *
 * The metadata is read from the ONNX file's top-level protobuf fields (`metadata_props`, field 14), the
 * graph (field 7, hundreds of MB) skipped by its length, never read.
 */
import { closeSync, fstatSync, openSync, readFileSync, readSync } from 'node:fs';
import path from 'node:path';
import { errorMessage } from '../../../shared/errors';
import { ModelCorruptError } from './model';

const MAX_FIELD = 64 << 20;

/** The `metadata_props` (key → value) of an ONNX model file; throws what is wrong with the file. */
export function onnxMetadata(file: string): Map<string, string> {
  const fd = openSync(file, 'r');
  try {
    const size = fstatSync(fd).size;
    const meta = new Map<string, string>();
    let pos = 0;
    const byte = (): number => {
      const b = Buffer.alloc(1);
      if (readSync(fd, b, 0, 1, pos) !== 1) throw new Error(`ends inside a field at byte ${pos}`);
      pos++;
      return b[0]!;
    };
    const varint = (): number => {
      let v = 0;
      for (let shift = 0; shift < 63; shift += 7) {
        const b = byte();
        v += (b & 0x7f) * 2 ** shift;
        if (!(b & 0x80)) return v;
      }
      throw new Error('a malformed varint');
    };
    while (pos < size) {
      const tag = varint();
      const field = Math.floor(tag / 8);
      const wire = tag % 8;
      if (wire === 0) varint();
      else if (wire === 1) pos += 8;
      else if (wire === 5) pos += 4;
      else if (wire === 2) {
        const len = varint();
        if (pos + len > size) throw new Error(`a field of ${len} bytes runs past the end of the file`);
        if (field === 14 && len <= MAX_FIELD) {
          const b = Buffer.alloc(len);
          readSync(fd, b, 0, len, pos);
          const kv = entry(b);
          if (kv) meta.set(kv[0], kv[1]);
        }
        pos += len;
      } else throw new Error(`wire type ${wire} at byte ${pos}: not an ONNX model`);
    }
    return meta;
  } finally {
    closeSync(fd);
  }
}

/** A StringStringEntryProto (key = 1, value = 2). */
function entry(b: Buffer): [string, string] | undefined {
  let pos = 0;
  const varint = (): number => {
    let v = 0;
    for (let shift = 0; shift < 63 && pos < b.length; shift += 7) {
      const c = b[pos++]!;
      v += (c & 0x7f) * 2 ** shift;
      if (!(c & 0x80)) return v;
    }
    return v;
  };
  let key: string | undefined;
  let value = '';
  while (pos < b.length) {
    const tag = varint();
    if (tag % 8 !== 2) return undefined;
    const len = varint();
    const s = b.subarray(pos, pos + len).toString('utf8');
    pos += len;
    if (tag >>> 3 === 1) key = s;
    else if (tag >>> 3 === 2) value = s;
  }
  return key === undefined ? undefined : [key, value];
}

/** Reads `tokens.txt` as sherpa-onnx does (`piece id` a line; a line of only an id is the space piece): id → piece. */
function readTokens(file: string): Map<number, string> {
  const ids = new Map<number, string>();
  const name = path.basename(file);
  readFileSync(file, 'utf8')
    .split('\n')
    .forEach((raw, i) => {
      const line = raw.replace(/\r$/, '');
      if (line.trim() === '') return;
      const m = /^(.*?)\s*(\S+)$/u.exec(line)!;
      const id = Number(m[2]);
      if (!/^\d+$/.test(m[2]!) || !Number.isSafeInteger(id))
        throw new ModelCorruptError(`${name} line ${i + 1}: ${JSON.stringify(m[2])} is not a token id (each line is "piece id")`);
      if (ids.has(id)) throw new ModelCorruptError(`${name} line ${i + 1}: id ${id} appears twice`);
      ids.set(id, m[1] ?? '');
    });
  return ids;
}

/**
 * Throws {@link ModelCorruptError} when `tokens` does not name every token the model (`encoder`,
 * `decoder`) can emit: an id missing between 0 and the last, or fewer or more lines than its vocabulary.
 */
export function checkTokens(m: { dir: string; encoder: string; decoder: string; tokens: string }): void {
  const name = path.basename(m.tokens);
  let ids: Map<number, string>;
  try {
    ids = readTokens(m.tokens);
  } catch (e) {
    if (e instanceof ModelCorruptError) throw new ModelCorruptError(`the model in ${m.dir}: ${e.message}`);
    throw new ModelCorruptError(`cannot read ${m.tokens} (${errorMessage(e)})`);
  }
  if (ids.size === 0) throw new ModelCorruptError(`the model in ${m.dir}: ${name} has no tokens`);
  const max = Math.max(...ids.keys());
  if (max !== ids.size - 1) {
    let gap = 0;
    while (ids.has(gap)) gap++;
    throw new ModelCorruptError(
      `the model in ${m.dir}: ${name} has no token of id ${gap} (its ids run to ${max} over ${ids.size} lines): the model can emit it; the file does not belong to this model or is damaged`,
    );
  }
  const declared = (file: string): number | undefined => {
    let meta: Map<string, string>;
    try {
      meta = onnxMetadata(file);
    } catch {
      return undefined; // not an ONNX file: the start's probe (probe.ts) refuses it with sherpa-onnx's reason
    }
    const v = meta.get('vocab_size');
    return v !== undefined && /^\d+$/.test(v) ? Number(v) : undefined;
  };
  // NeMo: the encoder's vocab_size excludes the blank, the last line; Zipformer: the decoder's counts every token.
  const nemo = declared(m.encoder);
  const expected = nemo !== undefined ? nemo + 1 : declared(m.decoder);
  if (expected !== undefined && expected !== ids.size)
    throw new ModelCorruptError(
      `the model in ${m.dir}: ${name} has ${ids.size} tokens, the model emits ${expected} (its vocab_size metadata${nemo !== undefined ? ' plus the blank' : ''}): the file does not belong to this model or is damaged`,
    );
}
