/**
 * The capture page in real Chromium (headless, fake microphone playing a WAV file, no SoX, no
 * PulseAudio) against the real page server: the page's script and worklet record, resample and send
 * 100 ms frames of 16 kHz PCM; push-to-talk records only while the key is held; closing the page is
 * told; the record LED of paired dictation microphones follows the dictation's state and their buttons
 * reach the server (through a fake dictation_support library: WebHID has no device here). Skipped where
 * Chromium is not installed.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { CapturePageServer, type PageRequest } from '../../src/audio/browser/pageServer';
import { ENGLISH_PAGE_STRINGS } from '../../src/audio/browser/pageAssets';
import { PageMicrophoneError } from '../../src/audio/browser/pageMicrophone';
import { waitFor } from '../helpers/wait';
import { wavOf } from '../../src/shared/wavFile';

const CHROMIUM = process.env.DICTEE_E2E_CHROMIUM ?? '/usr/bin/chromium';
const TONE_HZ = 440;

/**
 * A fake of the dictation_support library (no dictation microphone exists here): the page's
 * `DictationSupport` with three paired devices (a SpeechMike, a PowerMic III, a foot control) that note
 * the LED calls they get, and a way to press their buttons.
 */
const FAKE_DICTATION_SUPPORT = String.raw`(function () {
  const calls = [];
  let buttons;
  function FakeDevice(implType, name) { this.implType = implType; this.name = name; }
  FakeDevice.prototype.setSimpleLedState = function (v) { calls.push(this.name + ' simple ' + v); return Promise.resolve(); };
  FakeDevice.prototype.setLed = function (v) { calls.push(this.name + ' pm3 ' + v); return Promise.resolve(); };
  const devices = [new FakeDevice(0, 'speechmike'), new FakeDevice(3, 'powermic3'), new FakeDevice(2, 'foot')];
  function FakeManager() {}
  FakeManager.prototype.init = function () { return Promise.resolve(); };
  FakeManager.prototype.getDevices = function () { return devices; };
  FakeManager.prototype.requestDevice = function () { return Promise.resolve([]); };
  FakeManager.prototype.addButtonEventListener = function (l) { buttons = l; };
  FakeManager.prototype.addDeviceConnectedEventListener = function () {};
  FakeManager.prototype.addDeviceDisconnectedEventListener = function () {};
  self.DictationSupport = {
    ImplementationType: { SPEECHMIKE_HID: 0, SPEECHMIKE_GAMEPAD: 1, FOOT_CONTROL: 2, POWERMIC_3: 3 },
    DictationDeviceManager: FakeManager,
  };
  self.fakeDictationDevices = { calls: calls, press: function (mask) { buttons(devices[0], mask); } };
})();
`;

/** A 48 kHz mono 16-bit WAV of a tone. */
function toneWav(file: string, seconds: number): void {
  const rate = 48000;
  const pcm = Buffer.alloc(rate * seconds * 2);
  for (let i = 0; i < rate * seconds; i++) pcm.writeInt16LE(Math.round(12000 * Math.sin((2 * Math.PI * TONE_HZ * i) / rate)), i * 2);
  writeFileSync(file, wavOf(pcm, rate));
}

/** The tone's frequency in 16 kHz s16le PCM, by rising zero crossings. */
function frequency(pcm: Buffer): number {
  let crossings = 0;
  let prev = 0;
  for (let i = 0; i + 1 < pcm.length; i += 2) {
    const v = pcm.readInt16LE(i);
    if (prev < 0 && v >= 0) crossings++;
    prev = v;
  }
  return crossings / (pcm.length / 2 / 16000);
}

describe('capture page in Chromium (fake microphone)', function () {
  this.timeout(60000);
  let browser: Browser | undefined;
  let dir: string;

  before(async function () {
    if (!existsSync(CHROMIUM)) return this.skip();
    dir = mkdtempSync(path.join(os.tmpdir(), 'dictee-page-'));
    const wav = path.join(dir, 'tone.wav');
    toneWav(wav, 5);
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--use-fake-ui-for-media-stream',
        '--use-fake-device-for-media-stream',
        `--use-file-for-fake-audio-capture=${wav}`,
      ],
    });
  });
  after(async () => {
    await browser?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  async function setup(
    mode: string,
    hidLibrary = readFileSync(require.resolve('dictation_support'), 'utf8'),
  ): Promise<{
    server: CapturePageServer;
    audio: Buffer[];
    requests: PageRequest[];
    pages: string[];
    problems: string[];
    page: import('playwright-core').Page;
  }> {
    const server = new CapturePageServer({ hidLibrary });
    await server.listen();
    server.configure({ mode, key: 'Space', lang: 'en', strings: ENGLISH_PAGE_STRINGS });
    const audio: Buffer[] = [];
    const requests: PageRequest[] = [];
    const pages: string[] = [];
    server.on('data', (b) => audio.push(b));
    server.on('request', (r) => requests.push(r));
    server.on('page', (p) => pages.push(p));
    const page = await browser!.newPage();
    const problems: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(m.text());
    });
    page.on('pageerror', (e) => problems.push(e.message));
    await page.goto(server.newPageUrl());
    await waitFor(() => pages.includes('connected'), 10000, 'the page connected');
    return { server, audio, requests, pages, problems, page };
  }

  it('push-to-talk: records 16 kHz frames of the microphone only while the key is held', async () => {
    const { server, audio, requests, pages, problems, page } = await setup('pushToTalk');
    try {
      assert.match((await page.textContent('#ptt')) ?? '', /Hold Space to talk/);
      // dictation_support loaded over WebHID (no device here): the pairing button is offered
      await page.waitForSelector('#hid:not([hidden])', { timeout: 10000 });
      assert.equal(await page.textContent('#devices'), 'Dictation microphones connected: 0');
      // Dictation started from VS Code: without the key held, the page records nothing and asks to pause.
      server.start();
      server.setState('recording');
      await waitFor(() => requests.includes('pause'), 10000, 'the page asks to pause while the key is up');
      await server.stop();
      assert.equal(audio.length, 0, 'nothing recorded without the key');
      server.setState('paused');
      requests.length = 0;
      await page.keyboard.down('Space');
      await waitFor(() => requests.includes('start'), 10000, 'the key asked to record');
      server.start();
      server.setState('recording');
      await waitFor(() => audio.length >= 15, 15000, '1.5 s of audio');
      await page.keyboard.up('Space');
      await waitFor(() => requests.includes('pause'), 10000, 'releasing the key asked to pause');
      await server.stop();
      const n = audio.length;
      const pcm = Buffer.concat(audio);
      assert.ok(
        audio.slice(0, -1).every((f) => f.length === 3200),
        'frames of 100 ms',
      );
      const hz = frequency(pcm.subarray(3200));
      assert.ok(Math.abs(hz - TONE_HZ) < TONE_HZ * 0.05, `the tone comes out at ${hz.toFixed(1)} Hz`);
      await new Promise((r) => setTimeout(r, 500));
      assert.equal(audio.length, n, 'nothing after the pause');
      assert.equal(await page.textContent('#state'), 'Recording');
      await page.close();
      await waitFor(() => pages.includes('closed'), 10000, 'closing the page is told');
      assert.deepEqual(problems, [], 'no error in the page (CSP included)');
    } finally {
      await server.close();
    }
  });

  it('toggle: the page opened while dictating records after a click on Start', async () => {
    const { server, audio, requests, problems, page } = await setup('toggle');
    try {
      server.start();
      server.setState('connecting');
      await page.click('#start');
      await waitFor(() => requests.includes('start'), 10000, 'Start asked to record');
      server.setState('recording');
      await waitFor(() => audio.length >= 5, 15000, 'audio');
      await page.click('#stop');
      await waitFor(() => requests.includes('stop'), 10000, 'Stop');
      await server.stop();
      assert.deepEqual(problems, []);
    } finally {
      await page.close();
      await server.close();
    }
  });

  it("dictation microphones (a fake library): the record LED follows the dictation's state; a button press reaches the server", async () => {
    const { server, problems, page } = await setup('toggle', FAKE_DICTATION_SUPPORT);
    const calls = (): Promise<string[]> =>
      page.evaluate(() => [...(globalThis as unknown as { fakeDictationDevices: { calls: string[] } }).fakeDictationDevices.calls]);
    const last = async (): Promise<string[]> => (await calls()).slice(-2);
    try {
      await page.waitForSelector('#hid:not([hidden])', { timeout: 10000 });
      assert.equal(await page.textContent('#devices'), 'Dictation microphones connected: 3');
      await waitFor(async () => (await last()).join() === 'speechmike simple 0,powermic3 pm3 0', 10000, 'off while idle');
      server.setState('recording');
      await waitFor(async () => (await last()).join() === 'speechmike simple 2,powermic3 pm3 1', 10000, 'red while recording');
      server.setState('paused');
      await waitFor(
        async () => (await last()).join() === 'speechmike simple 4,powermic3 pm3 2',
        10000,
        'blinking (PowerMic III: green) while paused',
      );
      assert.ok(!(await calls()).some((c) => c.startsWith('foot')), 'a foot control has no LED');
      const masks: number[] = [];
      server.on('buttons', (m) => masks.push(m));
      await page.evaluate(() => {
        const f = (globalThis as unknown as { fakeDictationDevices: { press(m: number): void } }).fakeDictationDevices;
        f.press(1024);
        f.press(0);
      });
      await waitFor(() => masks.length === 2, 10000, 'the button masks');
      assert.deepEqual(masks, [1024, 0]);
      server.setState('recording');
      await waitFor(async () => (await last()).join() === 'speechmike simple 2,powermic3 pm3 1', 10000, 'red again');
      await server.close();
      await waitFor(async () => (await last()).join() === 'speechmike simple 0,powermic3 pm3 0', 10000, 'off once the page is closed');
      assert.deepEqual(problems, []);
    } finally {
      await page.close();
      await server.close();
    }
  });
});

describe('capture page in Chromium without a microphone', function () {
  this.timeout(60000);
  let browser: Browser | undefined;

  before(async function () {
    if (!existsSync(CHROMIUM)) return this.skip();
    // No fake device: Chromium finds no microphone here (getUserMedia fails with NotFoundError).
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--use-fake-ui-for-media-stream'],
    });
  });
  after(async () => {
    await browser?.close();
  });

  it("the page says so, and its report reaches the server as the source's error while recording (no pause request)", async () => {
    const server = new CapturePageServer();
    await server.listen();
    server.configure({ mode: 'toggle', key: 'Space', lang: 'en', strings: ENGLISH_PAGE_STRINGS });
    const errors: Error[] = [];
    const requests: PageRequest[] = [];
    const pages: string[] = [];
    server.on('error', (e) => errors.push(e));
    server.on('request', (r) => requests.push(r));
    server.on('page', (p) => pages.push(p));
    const page = await browser!.newPage();
    try {
      await page.goto(server.newPageUrl());
      await waitFor(() => pages.includes('connected'), 10000, 'the page connected');
      server.setState('recording');
      server.start();
      await waitFor(() => errors.length > 0, 15000, "the page's report");
      const e = errors[0]!;
      assert.ok(e instanceof PageMicrophoneError, String(e));
      assert.equal(e.problem, 'notFound', e.message);
      assert.match((await page.textContent('#error')) ?? '', /The browser did not give the microphone/);
      // The run's end stops the capture: the page has said it has nothing more to send, so the stop is not held.
      const t0 = Date.now();
      await server.stop();
      assert.ok(Date.now() - t0 < 900, `stop took ${Date.now() - t0} ms`);
      assert.deepEqual(requests, []);
    } finally {
      await page.close();
      await server.close();
    }
  });
});
