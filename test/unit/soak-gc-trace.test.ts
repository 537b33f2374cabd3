/** The soak's reading of the service's --trace-gc log (test/fuzz/soak/gcTrace.ts). */
import assert from 'node:assert/strict';
import { type GcEvent, allocatedMB, floorMB, heapSizedAt, majorCount, parseGcTrace } from '../fuzz/soak/gcTrace';

// Lines as Node 20's V8 prints them, among the service's own log lines.
const LOG = [
  '{"level":"info","msg":"listening on http://127.0.0.1:4000"}',
  '[25521:0x24e97250]      207 ms: Scavenge 9.8 (9.9) -> 9.4 (10.9) MB, 2.63 / 0.00 ms  (average mu = 1.000, current mu = 1.000) allocation failure; ',
  '[25521:0x24e97250]     1220 ms: Scavenge 12.0 (13.2) -> 9.9 (13.9) MB, 2.52 / 0.00 ms  (average mu = 1.000, current mu = 1.000) allocation failure; ',
  '[25521:0x24e97250]     2500 ms: Mark-Compact 30.5 (40.0) -> 20.0 (38.0) MB, 48.75 / 0.07 ms  (+ 54.8 ms in 24 steps since start of marking) finalize incremental marking via task; GC in old space requested',
  '[25521:0x24e97250]     4000 ms: Mark-Compact (reduce) 25.0 (38.0) -> 18.5 (30.0) MB, 40.1 / 0.00 ms  (average mu = 0.9) memory reducer',
  '[25521:0x24e97250]     5000 ms: Minor Mark-Sweep 22.0 (30.0) -> 20.0 (30.0) MB, 1.1 / 0.00 ms  allocation failure;',
].join('\n');

const ev = (t: number, kind: GcEvent['kind'], beforeMB: number, afterMB: number, committedMB: number): GcEvent => ({
  t,
  kind,
  beforeMB,
  afterMB,
  committedMB,
});

describe('soak GC trace (the service heap from --trace-gc)', () => {
  it("reads every collection, minor and major, on the soak's clock", () => {
    const gc = parseGcTrace(LOG, 1).map((e) => ({ ...e, t: Math.round(e.t * 1000) / 1000 }));
    assert.deepEqual(gc, [
      ev(-0.793, 'minor', 9.8, 9.4, 10.9),
      ev(0.22, 'minor', 12, 9.9, 13.9),
      ev(1.5, 'major', 30.5, 20, 38),
      ev(3, 'major', 25, 18.5, 30),
      ev(4, 'minor', 22, 20, 30),
    ]);
  });

  it("sums the heap's growth between collections as the bytes allocated, within the span", () => {
    const gc = parseGcTrace(LOG, 0);
    // (12 − 9.4) + (30.5 − 9.9) + (25 − 20) + (22 − 18.5)
    assert.equal(allocatedMB(gc, 0, 10).toFixed(1), '31.7');
    assert.equal(allocatedMB(gc, 2, 10).toFixed(1), '29.1');
    assert.equal(allocatedMB([], 0, 10), 0);
  });

  it("takes the heap's floor and counts from the major collections only", () => {
    const gc = parseGcTrace(LOG, 0);
    assert.equal(floorMB(gc, 0, 10), 18.5);
    assert.equal(floorMB(gc, 0, 3), 20);
    assert.equal(floorMB(gc, 0, 2), undefined);
    assert.equal(majorCount(gc, 0, 10), 2);
  });

  it('sees V8 done sizing the heap when its committed size stops growing', () => {
    // Grows 40 → 100 MB over the first 200 s, then stays within 96–100.
    const sizing = Array.from({ length: 20 }, (_, i) => ev(i * 10, 'major', 50, 30, 40 + i * 3));
    const plateau = Array.from({ length: 40 }, (_, i) => ev(200 + i * 10, 'major', 50, 30, i % 2 ? 100 : 96));
    const r = heapSizedAt([...sizing, ...plateau], 0, 600)!;
    assert.equal(r.maxMB, 100);
    assert.equal(r.t, 190); // 40 + 19 × 3 = 97 ≥ 95
    // The committed size swinging up between two major collections (a minor one sees it) is not sizing.
    const swing = [...sizing, ...plateau, ev(505, 'minor', 80, 70, 160)].sort((a, b) => a.t - b.t);
    assert.deepEqual(heapSizedAt(swing, 0, 600), r);
  });

  it('sees a heap that keeps growing (a leak) sized only at the end', () => {
    const leak = Array.from({ length: 60 }, (_, i) => ev(i * 10, 'major', 50 + i, 30 + i, 40 + i * 2));
    assert.equal(heapSizedAt(leak, 0, 600)!.t, 560); // 40 + 56 × 2 ≥ 0.95 × 158
    assert.equal(heapSizedAt(leak, 700, 800), undefined);
  });
});
