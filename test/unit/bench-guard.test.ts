import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { benchProblems, sectionProblems } from '../../bench/guard';

const ROOT = path.join(__dirname, '..', '..');

/** The e2e bench's table as it came out when it measured nothing (issue 31). */
const EMPTY_E2E = `
| path | finals | p50 (ms) | p95 (ms) | p99 (ms) | max (ms) | mean (ms) |
|---|---:|---:|---:|---:|---:|---:|
| service → extension → editor, grammar off | 0 | n/a | n/a | n/a | n/a | 0.0 |
| baseline: service → bare ws client | 408 | 0.1 | 0.5 | 0.8 | 8.7 | 0.2 |
| grammar on / off | | n/a | n/a | n/a | | n/a |
`;

describe('bench/guard: a bench that measured nothing fails', () => {
  it('passes a section whose paths have samples and whose ratios are numbers', () => {
    const ok = {
      title: 'T',
      markdown: '| a | 3 | 1.5 |\n\nService 0.4 CPU ms per session-second, echo 0.3 (1.33×).',
      samples: { a: 3 },
      ratios: { r: 1.33 },
    };
    assert.deepEqual(sectionProblems(ok), []);
  });

  it('fails a declared path with no samples, and a ratio that is NaN, infinite or zero', () => {
    const p = sectionProblems({
      title: 'T',
      markdown: '',
      samples: { 'editor, grammar off': 0, baseline: 408 },
      ratios: { a: NaN, b: Infinity, c: 0, d: 2 },
    });
    assert.deepEqual(p, ['path "editor, grammar off" has no samples (0)', 'ratio "a" is NaN', 'ratio "b" is Infinity', 'ratio "c" is 0']);
  });

  it('fails the table of zeros the e2e bench wrote (its n/a cells), naming the line', () => {
    const p = sectionProblems({ title: 'E2E', markdown: EMPTY_E2E });
    assert.equal(p.length, 2);
    assert.match(p[0]!, /^line 4 holds "n\/a": \| service → extension → editor, grammar off \| 0/);
    assert.match(p[1]!, /^line 6 holds "n\/a"/);
  });

  it('fails NaN, Infinity and ∞ in a table or a sentence, not words that contain them', () => {
    for (const text of ['| x | NaN |', 'ratio Infinity.', '| x | -Infinity |', 'capacity ∞', 'Ratio: n/a.']) {
      assert.equal(sectionProblems({ title: 'T', markdown: text }).length, 1, text);
    }
    for (const text of ['NaNosecond', 'InfinityBand', 'and/or', 'n/any', 'kHz/n/a2']) {
      assert.deepEqual(sectionProblems({ title: 'T', markdown: text }), [], text);
    }
  });

  it('prefixes each problem with its section', () => {
    assert.deepEqual(
      benchProblems([
        { title: 'A', markdown: 'NaN' },
        { title: 'B', markdown: 'ok' },
      ]),
      ['A: line 1 holds "NaN": NaN'],
    );
  });

  describe('npm run bench (bench/run.ts) with the guard', function () {
    this.timeout(60_000);
    let tmp: string;
    let out: string;
    const before = '# Benchmarks\n\n## Fixture bench\n\nas it was\n';
    beforeEach(() => {
      tmp = mkdtempSync(path.join(os.tmpdir(), 'dictee-bench-guard-'));
      out = path.join(tmp, 'benchmarks.md');
      writeFileSync(out, before);
    });
    afterEach(() => rmSync(tmp, { recursive: true, force: true }));
    const runBench = (samples: number) =>
      spawnSync(process.execPath, ['--import', 'tsx', path.join(ROOT, 'bench', 'run.ts'), 'measured'], {
        cwd: ROOT,
        encoding: 'utf8',
        env: {
          ...process.env,
          DICTEE_BENCH_DIR: path.join(ROOT, 'test', 'fixtures', 'bench'),
          DICTEE_BENCH_OUT: out,
          DICTEE_TEST_BENCH_SAMPLES: String(samples),
        },
      });

    it('exits non-zero and leaves docs/benchmarks.md as it was when a path has no samples', () => {
      const r = runBench(0);
      assert.equal(r.status, 1, r.stderr);
      assert.match(r.stderr, /BENCH FAILED/);
      assert.match(r.stderr, /Fixture bench: path "fixture" has no samples \(0\)/);
      assert.match(r.stderr, /Fixture bench: ratio "fixture \/ baseline" is NaN/);
      assert.equal(readFileSync(out, 'utf8'), before);
    });

    it('writes the section and exits 0 when it measured something', () => {
      const r = runBench(3);
      assert.equal(r.status, 0, r.stderr);
      assert.match(readFileSync(out, 'utf8'), /\| fixture \| 3 \| 12\.5 \|/);
    });
  });
});
