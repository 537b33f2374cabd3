/**
 * `npm start` says why a step failed (issue 29, defect 7): the built service started as `npm start --
 * --engine sherpa-onnx` starts it (no --model) exits with its cause on the first line and the usage text
 * after it; the report shows that cause first, where the end of the output (what was shown before) lost
 * it behind the usage text.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { causeLines, failureReport, tailLines } from '../../scripts/start-errors.mjs';

const ROOT = path.resolve(__dirname, '..', '..');

/** Runs the built service with `args`; resolves with its exit code and everything it printed, interleaved. */
function service(args: string[], dataDir: string): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['dist/server.js', '--port', '0', '--data-dir', dataDir, ...args], { cwd: ROOT });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, out }));
  });
}

describe('npm start: a failed step shows its own error line first', () => {
  let dir: string;
  before(() => (dir = mkdtempSync(path.join(os.tmpdir(), 'dictee-start-errors-'))));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('--engine sherpa-onnx without --model: the cause comes first, though the usage text follows it', async () => {
    const { code, out } = await service(['--engine', 'sherpa-onnx'], dir);
    assert.equal(code, 2);
    // What the terminal showed before: the end of the output, the usage text without its cause.
    assert.doesNotMatch(tailLines(out, 30), /needs --model/);
    const report = failureReport('npm start', 'service exited (code 2) before it was ready', out, '.dictee-data/start.log', 15).split('\n');
    assert.match(report[0]!, /^\[dictee\] npm start failed: .*--engine sherpa-onnx needs --model NAME\|DIR/i);
    assert.match(report[1]!, /service exited \(code 2\) before it was ready.*\.dictee-data\/start\.log/);
  });

  it('finds the error lines of JSON logs, npm and the compiler, each once, in order', () => {
    const out = [
      '{"level":"info","msg":"starting"}',
      '{"level":"fatal","msg":"cannot open the data directory","error":"EACCES: permission denied"}',
      'npm error code ELIFECYCLE',
      'src/x.ts(3,5): error TS2322: Type string is not assignable to type number.',
      'npm error code ELIFECYCLE',
    ].join('\n');
    assert.deepEqual(causeLines(out), [
      'cannot open the data directory: EACCES: permission denied',
      'npm error code ELIFECYCLE',
      'src/x.ts(3,5): error TS2322: Type string is not assignable to type number.',
    ]);
    assert.deepEqual(causeLines('all went well\nlistening on http://127.0.0.1:8787'), []);
  });
});
