/**
 * The example client as users run it: the built dist/client-cli.js streaming a WAV file to the built
 * service.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { useServer } from '../helpers/server';
import { silence, speechPcm } from '../helpers/speech';

const run = promisify(execFile);
const CLI = path.resolve(__dirname, '..', '..', 'dist', 'client-cli.js');

function wavFile(pcm: Buffer, rate = 16000, channels = 1): string {
  const h = Buffer.alloc(44);
  h.write('RIFF', 0, 'ascii');
  h.writeUInt32LE(36 + pcm.length, 4);
  h.write('WAVEfmt ', 8, 'ascii');
  h.writeUInt32LE(16, 16);
  h.writeUInt16LE(1, 20);
  h.writeUInt16LE(channels, 22);
  h.writeUInt32LE(rate, 24);
  h.writeUInt32LE(rate * 2 * channels, 28);
  h.writeUInt16LE(2 * channels, 32);
  h.writeUInt16LE(16, 34);
  h.write('data', 36, 'ascii');
  h.writeUInt32LE(pcm.length, 40);
  const f = path.join(mkdtempSync(path.join(os.tmpdir(), 'dictee-cli-')), 'dictation.wav');
  writeFileSync(f, Buffer.concat([h, pcm]));
  return f;
}

async function cli(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const r = await run(process.execPath, [CLI, ...args], { env: { ...process.env, ...env }, timeout: 60_000 });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (e) {
    const x = e as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof x.code === 'number' ? x.code : -1, stdout: x.stdout ?? '', stderr: x.stderr ?? '' };
  }
}

describe('client: the example client (dist/client-cli.js)', function () {
  this.timeout(60_000);
  const SCRIPT = 'Impression: normal chest. No effusion.';
  const server = useServer(() => {
    const f = path.join(mkdtempSync(path.join(os.tmpdir(), 'dictee-cli-')), 'script.txt');
    writeFileSync(f, SCRIPT);
    return { script: f };
  });
  let key: string;
  before(async () => {
    key = (await server.createKey()).key;
  });

  it('streams a WAV file, prints the events, the committed text and the metrics', async () => {
    const pcm = Buffer.concat([await speechPcm('Impression: normal chest, and no effusion at all.'), silence(400)]);
    const r = await cli([wavFile(pcm), '--server', server.url, '--language', 'en', '--fast'], { DICTEE_API_KEY: key });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^\[seq 1\] streaming /m);
    assert.match(r.stdout, /\] final /);
    assert.match(r.stdout, /batch\.replace \[/);
    assert.match(r.stdout, new RegExp(`--- committed text ---\\n${SCRIPT.replace(/[.]/g, '\\.')}\\n---`));
    assert.match(r.stdout, /metrics: total_chunks \d+, session_duration [\d.]+ s/);
    assert.ok(!r.stdout.includes(key) && !r.stderr.includes(key));
  });

  it('--realtime (the default) paces the frames at 100 ms', async () => {
    const pcm = Buffer.concat([await speechPcm('Impression: normal.'), silence(300)]);
    const seconds = pcm.length / 32000;
    const t0 = Date.now();
    const r = await cli([wavFile(pcm), '--server', server.url, '--language', 'en'], { DICTEE_API_KEY: key });
    const elapsed = (Date.now() - t0) / 1000;
    assert.equal(r.code, 0, r.stderr);
    assert.ok(elapsed >= seconds, `took ${elapsed} s for ${seconds} s of audio`);
    assert.match(r.stdout, /--- committed text ---\nImpression: normal/);
  });

  it('a WAV in another format: a clear error with the sox command, nothing sent', async () => {
    const r = await cli([wavFile(Buffer.alloc(8820), 44100, 2), '--server', server.url], { DICTEE_API_KEY: key });
    assert.equal(r.code, 1);
    assert.match(r.stderr, /2 channels instead of 1, 44100 Hz instead of 16000 Hz/);
    assert.match(r.stderr, /sox .* -r 16000 -c 1 -b 16 -e signed-integer/);
  });

  it('no key: says which variable to set; a wrong key: AUTH_ERROR and the advice, without the key', async () => {
    const f = wavFile(silence(500));
    const none = await cli([f, '--server', server.url], { DICTEE_API_KEY: '' });
    assert.equal(none.code, 2);
    assert.match(none.stderr, /DICTEE_API_KEY/);
    const wrong = `svc_test_${'z'.repeat(40)}`;
    const bad = await cli([f, '--server', server.url], { DICTEE_API_KEY: wrong });
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /error AUTH_ERROR/);
    assert.match(bad.stderr, /Set a valid API key/);
    assert.ok(!bad.stderr.includes(wrong));
  });

  it('usage errors exit 2 with the usage text', async () => {
    const r = await cli(['--language', 'xx'], { DICTEE_API_KEY: key });
    assert.equal(r.code, 2);
    assert.match(r.stderr, /usage: npm run client -- FILE\.wav/);
  });
});
