/**
 * The dictation formatter as users run it: the built dist/format.js, utterances on standard input,
 * the document on standard output; every golden table row goes through it.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { LANGUAGES } from '../../src/dictation/types';
import { goldenRows, ROOT } from '../helpers/dictation';

const CLI = path.join(ROOT, 'dist', 'format.js');

function run(args: string[], input: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [CLI, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    p.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    p.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    p.on('error', reject);
    p.on('close', (code) => resolve({ code, stdout, stderr }));
    p.stdin.end(input);
  });
}

describe('dictation: the command line (dist/format.js)', function () {
  this.timeout(60_000);

  for (const language of LANGUAGES) {
    const rows = goldenRows(language);
    it(`${language}: every golden row of one utterance, one dictation per line (--each-line)`, async () => {
      for (const specialty of [...new Set(rows.map((r) => r.specialty))]) {
        const single = rows.filter((r) => r.utterances.length === 1 && r.specialty === specialty);
        const r = await run(
          ['--language', language, '--specialty', specialty, '--each-line'],
          single.map((x) => x.utterances[0]).join('\n') + '\n',
        );
        assert.equal(r.code, 0, r.stderr);
        const got = r.stdout
          .trimEnd()
          .split('\n')
          .map((l) => JSON.parse(l) as string);
        assert.equal(got.length, single.length);
        single.forEach((row, k) => assert.equal(got[k], row.written, `line ${row.line}: ${row.utterances[0]}`));
      }
    });

    it(`${language}: every golden row of several utterances, as a document`, async () => {
      for (const row of rows.filter((x) => x.utterances.length > 1)) {
        const r = await run(['--language', language, '--specialty', row.specialty], row.utterances.join('\n') + '\n');
        assert.equal(r.code, 0, r.stderr);
        const want = row.written === '' || row.written.endsWith('\n') ? row.written : `${row.written}\n`;
        assert.equal(r.stdout, want, `line ${row.line}: ${row.utterances.join(' | ')}`);
      }
    });
  }

  it('"--language" is fr by default; "-l" and "--language=" work', async () => {
    assert.equal((await run([], 'trois virgule deux centimètres\n')).stdout, '3,2\u00A0cm\n');
    assert.equal((await run(['-l', 'en'], 'three point two centimeters\n')).stdout, '3.2\u00A0cm\n');
    assert.equal((await run(['--language=de'], 'drei Komma zwei Zentimeter\n')).stdout, '3,2\u00A0cm\n');
  });

  it('an unknown language or option exits 2 with a clear message and prints nothing', async () => {
    const a = await run(['--language', 'it'], 'ciao\n');
    assert.equal(a.code, 2);
    assert.equal(a.stdout, '');
    assert.match(a.stderr, /unknown language "it": use fr, en, es or de/u);
    const b = await run(['--colour'], '');
    assert.equal(b.code, 2);
    assert.match(b.stderr, /unknown option "--colour"/u);
    const c = await run(['--language'], '');
    assert.equal(c.code, 2);
    assert.match(c.stderr, /--language needs a value/u);
    const d = await run(['--specialty', 'dentistry'], '');
    assert.equal(d.code, 2);
    assert.match(d.stderr, /unknown specialty "dentistry"/u);
  });

  it('--help says how to use it', async () => {
    const r = await run(['--help'], '');
    assert.equal(r.code, 0);
    assert.match(r.stdout, /^Usage: node dist\/format\.js/u);
    assert.match(r.stdout, /--each-line/u);
  });

  it('user templates and auto-texts from --templates, a vocabulary from --vocabulary', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'dictee-format-'));
    mkdirSync(path.join(dir, 'fr'));
    writeFileSync(path.join(dir, 'fr', 'normal-thorax.md'), 'Pas de foyer, pas d’épanchement.');
    writeFileSync(path.join(dir, 'vocab.json'), JSON.stringify({ 'scanner thoracique': 'TDM thoracique' }));
    const r = await run(
      ['--templates', dir, '--vocabulary', path.join(dir, 'vocab.json')],
      'scanner thoracique point\ninsérer normal thorax\n',
    );
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'TDM thoracique. Pas de foyer, pas d’épanchement.\n');
    writeFileSync(path.join(dir, 'bad.json'), '["not", "an", "object"]');
    const bad = await run(['--vocabulary', path.join(dir, 'bad.json')], 'x\n');
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /expected a JSON object of strings/u);
  });

  it('says on standard error what it could not do, by line, without the dictated words', async () => {
    const r = await run([], 'insérer modèle inexistant\n\narrête la dictée\nle foie\n');
    assert.equal(r.code, 0);
    assert.equal(r.stdout, '');
    assert.equal(r.stderr, 'format: line 1: no template has the name said\nformat: line 4: not written: dictation was stopped before it\n');
  });
});
