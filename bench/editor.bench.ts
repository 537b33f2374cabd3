/**
 * Editor side of dictation, without VS Code: what the document writer computes for each operation.
 *
 * 1. A `batch.replace` in a 100,000-line document versus a 100-line one: the transcript model's
 *    operation, locating the tracked offsets, reading the neighbouring characters for spacing,
 *    announcing the edit and taking the reported change back into the range tracker. The document's
 *    own text edit is the editor's work (VS Code's piece tree) and is not part of it; the document is
 *    held as a string only to read neighbours. The ratio should stay near 1: nothing we do scales with
 *    the document's length.
 * 2. `RangeTracker.applyChange` (a user keystroke before every chunk, the worst case: every range
 *    shifts) and the commit of one more chunk, with 100, 1,000 and 10,000 tracked chunks. Baseline, in
 *    the same run: shifting a plain `Int32Array` of the same number of offsets, the least work any
 *    per-chunk bookkeeping can do.
 */
import { joinText } from '../src/client/format';
import { RangeTracker, type TextChange } from '../src/client/ranges';
import { TranscriptModel } from '../src/client/transcript';
import type { BatchReplaceMessage, TranscriptMessage } from '../src/protocol/messages';

interface Section {
  title: string;
  markdown: string;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

/** Median nanoseconds per call of `fn` over `rounds` batches of `batch` calls (after a warm-up). */
function measure(fn: (i: number) => void, batch: number, rounds = 15): number {
  for (let i = 0; i < batch; i++) fn(i);
  const per: number[] = [];
  let k = batch;
  for (let r = 0; r < rounds; r++) {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < batch; i++) fn(k++);
    per.push(Number(process.hrtime.bigint() - t0) / batch);
  }
  return median(per);
}

const fmt = (ns: number): string => (ns >= 1000 ? `${(ns / 1000).toFixed(2)} µs` : `${ns.toFixed(0)} ns`);

function documentOf(lines: number): string {
  const parts: string[] = [];
  for (let i = 0; i < lines; i++) parts.push(`Line ${i}: the patient was seen in clinic; findings are unremarkable.`);
  return parts.join('\n');
}

/**
 * A run with `chunks` committed chunks dictated in the middle of a document of `lines` lines. Returns a
 * function doing one `batch.replace` of two adjacent chunks, end to end on the pure side.
 */
function replaceScenario(lines: number, chunks: number): () => void {
  const full = documentOf(lines);
  const anchor = Math.floor(full.length / 2);
  const prefix = full.slice(0, anchor);
  const suffix = full.slice(anchor);
  const tracker = new RangeTracker(anchor);
  const model = new TranscriptModel();
  let seq = 0;
  // The document is prefix + dictated + suffix: only the dictated part is rebuilt on our inserts, so
  // that the measured work excludes the editor's own text edit of a long document.
  let dictated = '';
  const text = (from: number, to: number): string => {
    let out = '';
    for (let o = Math.max(0, from); o < to; o++) {
      if (o < anchor) out += prefix[o] ?? '';
      else if (o < anchor + dictated.length) out += dictated[o - anchor] ?? '';
      else out += suffix[o - anchor - dictated.length] ?? '';
    }
    return out;
  };
  const doc = { slice: text };
  const insertAt = (offset: number, t: string): void => {
    const i = offset - anchor;
    dictated = dictated.slice(0, i) + t + dictated.slice(i);
  };
  for (let i = 0; i < chunks; i++) {
    const m: TranscriptMessage = { type: 'transcript', status: 'final', id: `c${i}`, index: i, text: `word${i}`, seq: ++seq };
    for (const op of model.apply(m)) {
      if (op.kind !== 'insert') continue;
      const at = tracker.insertionOffset(op.prevId, op.nextId);
      const s = joinText(doc.slice(Math.max(0, at - 2), at), op.text, doc.slice(at, at + 2));
      tracker.expect({
        changes: [{ offset: at, deletedLength: 0, insertedLength: s.length, text: s }],
        effect: { kind: 'insert', id: op.id, offset: at, length: s.length },
      });
      insertAt(at, s);
      tracker.applyChanges([{ offset: at, deletedLength: 0, insertedLength: s.length, text: s }]);
    }
  }
  let n = 0;
  let pairStart = 0;
  return () => {
    // Replace chunks (k, k+1) by one new chunk; the next call works on the next pair.
    const a = `c${pairStart}`;
    const b = `c${pairStart + 1}`;
    pairStart += 2;
    const msg: BatchReplaceMessage = {
      type: 'batch.replace',
      data: { target_ids: [a, b], new_chunk: { id: `r${n++}`, index: pairStart - 2, text: `Replaced ${n}.`, status: 'final' } },
      seq: ++seq,
    };
    for (const op of model.apply(msg)) {
      if (op.kind !== 'replace') continue;
      const rs = op.targetIds.map((id) => tracker.get(id)!).sort((x, y) => x.start - y.start);
      const start = rs[0]!.start;
      const end = rs[rs.length - 1]!.end;
      const s = joinText(doc.slice(Math.max(0, start - 2), start), op.text, doc.slice(end, end + 2));
      const change: TextChange = { offset: start, deletedLength: end - start, insertedLength: s.length, text: s };
      tracker.expect({
        changes: [change],
        effect: { kind: 'replace', id: op.id, removeIds: op.targetIds, offset: start, length: s.length },
      });
      tracker.applyChanges([change]);
    }
  };
}

function replaceSection(): string {
  const chunks = 4000; // each measured call consumes two chunks (25 warm-up + 750 measured calls)
  const rows: string[] = [];
  const sizes = [100, 100_000];
  // Both documents are prepared first, then measured in alternation (batches of 25 calls), so that JIT
  // warm-up and machine load fall on both alike.
  const fns = sizes.map((lines) => replaceScenario(lines, chunks));
  for (const fn of fns) for (let i = 0; i < 25; i++) fn();
  const samples: number[][] = sizes.map(() => []);
  for (let round = 0; round < 30; round++) {
    fns.forEach((fn, k) => {
      const t0 = process.hrtime.bigint();
      for (let i = 0; i < 25; i++) fn();
      samples[k]!.push(Number(process.hrtime.bigint() - t0) / 25);
    });
  }
  const results: Record<number, number> = {};
  sizes.forEach((lines, k) => {
    results[lines] = median(samples[k]!);
    rows.push(`| ${lines.toLocaleString('en')} | ${chunks} | ${fmt(results[lines]!)} |`);
  });
  const ratio = results[100_000]! / results[100]!;
  return [
    '### `batch.replace` in a long document',
    '',
    'One `batch.replace` of two adjacent committed chunks, from the message to the range tracker holding',
    'the new chunk: `TranscriptModel.apply`, locating the targets, reading the neighbours for spacing,',
    'announcing the edit and applying the reported change. Median of 30 batches of 25, the two documents',
    'measured in alternation.',
    '',
    '| document lines | committed chunks | time per batch.replace |',
    '|---:|---:|---:|',
    ...rows,
    '',
    `Ratio 100,000 lines / 100 lines (baseline: the 100-line document, same run): **${ratio.toFixed(2)}×**.`,
  ].join('\n');
}

function trackerSection(): string {
  const rows: string[] = [];
  let first: number | undefined;
  for (const n of [100, 1_000, 10_000]) {
    // User keystroke before every chunk: every range shifts.
    const t = new RangeTracker(0);
    for (let i = 0; i < n; i++) t.track(`c${i}`, 10 + i * 8, 7);
    const typing = measure((i) => t.applyChange({ offset: i % 5, deletedLength: 0, insertedLength: 1 }), n >= 10_000 ? 200 : 2000);
    // Baseline: shifting n offsets in a typed array.
    const starts = new Int32Array(n);
    const ends = new Int32Array(n);
    for (let i = 0; i < n; i++) {
      starts[i] = 10 + i * 8;
      ends[i] = 17 + i * 8;
    }
    const base = measure(
      () => {
        for (let i = 0; i < n; i++) {
          starts[i]! += 1;
          ends[i]! += 1;
        }
      },
      n >= 10_000 ? 200 : 2000,
    );
    // Committing one more chunk at the end of the run (announce + reported change); the chunk is then
    // forgotten again so that every measured commit sees exactly n tracked chunks.
    const c = new RangeTracker(0);
    for (let i = 0; i < n; i++) c.track(`c${i}`, i * 8, 7);
    const last = `c${n - 1}`;
    const commit = measure(
      () => {
        const at = c.insertionOffset(last, null);
        const ch: TextChange = { offset: at, deletedLength: 0, insertedLength: 6, text: ' word.' };
        c.expect({ changes: [ch], effect: { kind: 'insert', id: 'new', offset: at, length: 6 } });
        c.applyChanges([ch]);
        c.untrack('new');
      },
      n >= 10_000 ? 200 : 1000,
    );
    first ??= typing;
    rows.push(
      `| ${n.toLocaleString('en')} | ${fmt(typing)} | ${fmt(base)} | ${(typing / base).toFixed(1)}× | ${(typing / first).toFixed(1)}× | ${fmt(commit)} |`,
    );
  }
  return [
    '### Range tracking per document change',
    '',
    '`RangeTracker.applyChange` for one keystroke typed before every tracked chunk (the worst case: every',
    'range moves), and the commit of one more chunk (announce, then take the reported change back).',
    'Baseline in the same run: shifting the same number of offsets in a plain `Int32Array`.',
    '',
    '| tracked chunks | keystroke | baseline (Int32Array shift) | ratio to baseline | ratio to 100 chunks | commit one chunk |',
    '|---:|---:|---:|---:|---:|---:|',
    ...rows,
    '',
    'Per-change cost is linear in the number of chunks of the run (one dictation run rarely exceeds a few',
    'hundred chunks); it does not depend on the document length.',
  ].join('\n');
}

export function run(): Promise<Section> {
  return Promise.resolve({
    title: 'Editor operations (document writer, pure side)',
    markdown: [replaceSection(), '', trackerSection()].join('\n'),
  });
}
