/**
 * The example client as users run it: the built dist/client-cli.js streaming an audio file (WAV as it
 * is; another WAV format, or MP3, converted by the real sox) to the built service.
 */
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
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

async function cli(args: string[], env: Record<string, string>, cwd?: string): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const r = await run(process.execPath, [CLI, ...args], { env: { ...process.env, ...env }, timeout: 60_000, cwd });
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
    // It names the service it used, and why.
    assert.match(r.stderr, new RegExp(`^server: ${server.url.replace(/[.]/g, '\\.')} \\(--server\\)$`, 'm'));
  });

  it('without --server, follows the service npm start is running from the clone (on its own port), and names it', async () => {
    // The clone npm start runs from: its service's address in .dictee-data/dev/service.json, written by a
    // process that runs (this one).
    const clone = mkdtempSync(path.join(os.tmpdir(), 'dictee-clone-'));
    mkdirSync(path.join(clone, '.dictee-data', 'dev'), { recursive: true });
    writeFileSync(path.join(clone, '.dictee-data', 'dev', 'service.json'), JSON.stringify({ url: server.url, pid: process.pid }));
    const pcm = Buffer.concat([await speechPcm('Impression: normal.'), silence(300)]);
    const r = await cli([wavFile(pcm), '--language', 'en', '--fast'], { DICTEE_API_KEY: key, DICTEE_SERVER_URL: '' }, clone);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, new RegExp(`^server: ${server.url.replace(/[.]/g, '\\.')} \\(the service npm start is running`, 'm'));
    assert.match(r.stdout, /--- committed text ---/);
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

  /** `pcm` (16 kHz mono) written by sox as `name` (its extension chooses the format), at `rate` Hz and `channels`. */
  function soxFile(pcm: Buffer, name: string, rate = 16000, channels = 1): string {
    const out = path.join(mkdtempSync(path.join(os.tmpdir(), 'dictee-cli-')), name);
    execFileSync('sox', [wavFile(pcm), '-r', String(rate), '-c', String(channels), out]);
    return out;
  }

  it('a stereo 44.1 kHz WAV is converted by sox and streamed; the note names the file once', async () => {
    const pcm = Buffer.concat([await speechPcm('Impression: normal chest, and no effusion at all.'), silence(400)]);
    const f = soxFile(pcm, 'stereo.wav', 44100, 2);
    const r = await cli([f, '--server', server.url, '--language', 'en', '--fast'], { DICTEE_API_KEY: key });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /WAV file of 16-bit stereo audio at 44100 Hz, converted by sox to 16-bit mono at 16000 Hz/);
    assert.equal(r.stderr.split(f).length - 1, 1, r.stderr);
    assert.match(r.stdout, new RegExp(`--- committed text ---\\n${SCRIPT.replace(/[.]/g, '\\.')}\\n---`));
  });

  it('an MP3 file (espeak-ng speech encoded by sox) is decoded by sox and transcribed', async () => {
    const pcm = Buffer.concat([await speechPcm('Impression: normal chest, and no effusion at all.'), silence(400)]);
    const f = soxFile(pcm, 'dictation.mp3');
    const r = await cli([f, '--server', server.url, '--language', 'en', '--fast'], { DICTEE_API_KEY: key });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /dictation\.mp3: MP3 file, converted by sox to 16-bit mono at 16000 Hz/);
    assert.match(r.stdout, /\] final /);
    assert.match(r.stdout, new RegExp(`--- committed text ---\\n${SCRIPT.replace(/[.]/g, '\\.')}\\n---`));
  });

  it('without sox on PATH: the WAV problem and the sox command once, an MP3 said to need sox; nothing sent', async () => {
    const noSox = { DICTEE_API_KEY: key, PATH: mkdtempSync(path.join(os.tmpdir(), 'dictee-no-sox-')) };
    const wav = wavFile(Buffer.alloc(8820), 44100, 2);
    const r = await cli([wav, '--server', server.url], noSox);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /2 channels instead of 1, 44100 Hz instead of 16000 Hz/);
    assert.match(r.stderr, /sox .* -r 16000 -c 1 -b 16 -e signed-integer/);
    assert.match(r.stderr, /sox, which would convert it by itself, is not on PATH: install SoX/);
    assert.equal(r.stderr.split(`error: ${wav}: `).length - 1, 1, r.stderr);
    assert.equal(r.stderr.split(wav).length - 1, 2, 'the path once in the error, once in the sox command');
    const mp3 = soxFile(silence(500), 'dictation.mp3');
    const m = await cli([mp3, '--server', server.url], noSox);
    assert.equal(m.code, 1);
    assert.match(
      m.stderr,
      /dictation\.mp3: not a WAV file the service takes as it is; sox, which would convert it by itself, is not on PATH/,
    );
    assert.doesNotMatch(m.stderr, /16000 Hz pcm_s16le/);
  });

  it('a file sox cannot read: sox says why, no unrelated hint', async () => {
    const f = path.join(mkdtempSync(path.join(os.tmpdir(), 'dictee-cli-')), 'notes.mp3');
    writeFileSync(f, 'not audio at all');
    const r = await cli([f, '--server', server.url], { DICTEE_API_KEY: key });
    assert.equal(r.code, 1);
    assert.match(r.stderr, /notes\.mp3: sox cannot read it as audio: /);
  });

  it('no --language against a service that takes any language (a script): French, the default, said on stderr', async () => {
    const pcm = Buffer.concat([await speechPcm('Impression: normal.'), silence(300)]);
    const r = await cli([wavFile(pcm), '--server', server.url, '--fast'], { DICTEE_API_KEY: key });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /^language: fr \(the default: the service takes any language; --language chooses another\)$/m);
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

describe('client: the example client against a service that serves English only (pocketsphinx)', function () {
  this.timeout(90_000);
  // An empty models directory: English only, whatever French or Spanish models this machine has installed.
  const server = useServer(() => ({
    args: ['--engine', 'pocketsphinx'],
    env: { DICTEE_MODELS_DIR: mkdtempSync(path.join(os.tmpdir(), 'dictee-no-models-')) },
  }));
  let key: string;
  before(async () => {
    key = (await server.createKey()).key;
  });

  it('no --language: uses English, the only language the service serves, and says so', async () => {
    const pcm = Buffer.concat([await speechPcm('Chest radiograph shows clear lungs.'), silence(600)]);
    const r = await cli([wavFile(pcm), '--server', server.url, '--fast'], { DICTEE_API_KEY: key });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /^language: en \(the only language the service serves; --language chooses another\)$/m);
    assert.match(r.stdout, /-- configured: session .*, engine pocketsphinx/);
    assert.match(r.stdout, /metrics: total_chunks \d+/);
  });

  it('--language fr: refused before anything is sent, naming the languages served and the option to use', async () => {
    const r = await cli([wavFile(silence(500)), '--server', server.url, '--language', 'fr'], { DICTEE_API_KEY: key });
    assert.equal(r.code, 1);
    assert.match(
      r.stderr,
      /error: the service does not serve the language fr; it serves en \(http:\/\/127\.0\.0\.1:\d+\)\.\nRun again with --language en\./,
    );
    assert.doesNotMatch(r.stderr, /16000 Hz|pcm_s16le/, 'no hint about the audio format: the language is the cause');
    assert.doesNotMatch(r.stdout, /configured/);
  });
});
