import assert from 'node:assert/strict';
import * as vm from 'node:vm';
import {
  MAX_FRAME_BYTES,
  PageRate,
  PeerPolicy,
  RateBucket,
  TokenStore,
  frameProblem,
  parseHostHeader,
} from '../../src/audio/browser/pageSecurity';
import { CSP, ENGLISH_PAGE_STRINGS, jsonForHtml, pageHtml } from '../../src/audio/browser/pageAssets';
import { WORKLET_JS } from '../../src/audio/browser/pageWorklet';

function manualClock(start = 1_000_000): { now: () => number; advance: (ms: number) => void } {
  let t = start;
  return { now: () => t, advance: (ms) => void (t += ms) };
}

describe('capture page: tokens', () => {
  it('a token is good once, within its time to live', () => {
    const c = manualClock();
    const store = new TokenStore(c.now, 120_000);
    const a = store.issue();
    assert.match(a, /^[A-Za-z0-9_-]{43}$/);
    c.advance(119_999);
    assert.equal(store.consume(a), true);
    assert.equal(store.consume(a), false, 'reused');
  });
  it('an expired, unknown, empty or huge token is refused', () => {
    const c = manualClock();
    const store = new TokenStore(c.now, 120_000);
    const a = store.issue();
    c.advance(120_001);
    assert.equal(store.consume(a), false);
    assert.equal(store.consume('x'.repeat(43)), false);
    assert.equal(store.consume(''), false);
    assert.equal(store.consume(undefined), false);
    assert.equal(store.consume('a'.repeat(10_000)), false);
    assert.equal(store.size, 0, 'the expired token was swept');
  });
  it('revokeAll forgets the tokens not yet used; tokens differ', () => {
    const store = new TokenStore();
    const a = store.issue();
    const b = store.issue();
    assert.notEqual(a, b);
    store.revokeAll();
    assert.equal(store.consume(a), false);
    assert.equal(store.consume(b), false);
  });
});

describe('capture page: Host and Origin', () => {
  const p = new PeerPolicy(4567);
  it('accepts loopback names with the server port only', () => {
    for (const h of ['127.0.0.1:4567', 'localhost:4567', 'LOCALHOST:4567', '[::1]:4567']) assert.equal(p.hostAllowed(h), true, h);
    for (const h of [
      '127.0.0.1:80',
      'localhost',
      'evil.example:4567',
      'evil.example',
      '127.0.0.1.evil.example:4567',
      '0.0.0.0:4567',
      '',
      undefined,
      '127.0.0.1:4567@evil',
      'localhost:4567/x',
      '127.0.0.2:4567',
    ]) {
      assert.equal(p.hostAllowed(h), false, String(h));
    }
  });
  it("accepts only the page's own origins", () => {
    for (const o of ['http://127.0.0.1:4567', 'http://localhost:4567']) assert.equal(p.originAllowed(o), true, o);
    for (const o of [
      'https://127.0.0.1:4567',
      'http://127.0.0.1:4568',
      'http://evil.example:4567',
      'null',
      '',
      undefined,
      'http://localhost:4567.evil.example',
      'file://',
      'http://127.0.0.1:4567/path',
    ]) {
      assert.equal(p.originAllowed(o), false, String(o));
    }
  });
  it('accepts the host and origin of the external address a proxy forwards', () => {
    const q = new PeerPolicy(4567);
    q.allowExternal('https://code.example.org/proxy/4567/d/token');
    assert.equal(q.hostAllowed('code.example.org'), true);
    assert.equal(q.originAllowed('https://code.example.org'), true);
    assert.equal(q.originAllowed('http://code.example.org'), false);
    assert.equal(q.hostAllowed('other.example.org'), false);
    q.allowExternal('javascript:alert(1)');
    q.allowExternal('not a url');
    assert.equal(q.originAllowed('null'), false);
  });
  it('parses host headers strictly', () => {
    assert.deepEqual(parseHostHeader('[::1]:80'), { name: '[::1]', port: 80 });
    assert.equal(parseHostHeader('a:99999'), undefined);
    assert.equal(parseHostHeader('a b'), undefined);
  });
});

describe('capture page: frames and rate', () => {
  it('takes even frames of at most 100 ms', () => {
    assert.equal(frameProblem(MAX_FRAME_BYTES), undefined);
    assert.equal(frameProblem(2), undefined);
    assert.match(frameProblem(0)!, /empty/);
    assert.match(frameProblem(3199)!, /16-bit/);
    assert.match(frameProblem(MAX_FRAME_BYTES + 2)!, /more than/);
  });
  it('a bucket refills with time', () => {
    const c = manualClock();
    const b = new RateBucket(10, 5, c.now);
    assert.equal(b.take(10), true);
    assert.equal(b.take(1), false);
    c.advance(200);
    assert.equal(b.take(1), true);
    assert.equal(b.take(1), false);
  });
  it('real-time audio passes for a long time; twice real time does not', () => {
    const c = manualClock();
    const r = new PageRate(32000, c.now);
    for (let i = 0; i < 3000; i++) {
      assert.equal(r.take(3200), true, `frame ${i}`);
      c.advance(100);
    }
    const fast = new PageRate(32000, c.now);
    let ok = 0;
    for (let i = 0; i < 300 && fast.take(3200); i++, ok++) c.advance(50);
    assert.ok(ok < 300 && ok >= 20, `twice real time was cut after ${ok} frames`);
  });
  it('a flood of tiny messages is cut', () => {
    const c = manualClock();
    const r = new PageRate(32000, c.now);
    let ok = 0;
    while (r.take(2) && ok < 1000) ok++;
    assert.ok(ok <= 40, `${ok}`);
  });
});

describe('capture page: the page', () => {
  it('embeds its data as JSON no HTML can break out of, and no inline script', () => {
    const html = pageHtml({
      socket: 'tok',
      mode: 'toggle',
      key: 'Space',
      lang: 'fr',
      strings: { ...ENGLISH_PAGE_STRINGS, start: '</script><script>alert(1)</script>' },
    });
    assert.ok(!html.includes('<script>alert'));
    const data = /<script type="application\/json" id="dictee-config">(.*?)<\/script>/s.exec(html)![1]!;
    assert.equal(JSON.parse(data).strings.start, '</script><script>alert(1)</script>');
    assert.ok(!/<script>(?!<)/.test(html.replace(/&#60;script&#62;/g, '')));
    assert.match(CSP, /default-src 'none'/);
    assert.ok(!CSP.includes('unsafe'));
    assert.equal(JSON.parse(jsonForHtml('\u2028<')), '\u2028<');
  });
});

/** Runs the worklet's code in a sandbox at `rate` and returns what it posts for `input`. */
function runWorklet(rate: number, input: Float32Array): { pcm: Int16Array; drained: boolean } {
  const posted: unknown[] = [];
  let Proc: new () => { port: { onmessage: (e: { data: unknown }) => void }; process: (i: Float32Array[][]) => boolean } =
    undefined as never;
  class AudioWorkletProcessor {
    port = { onmessage: (_e: unknown) => undefined, postMessage: (m: unknown) => void posted.push(m) };
  }
  vm.runInNewContext(WORKLET_JS, {
    sampleRate: rate,
    AudioWorkletProcessor,
    registerProcessor: (_n: string, c: typeof Proc) => void (Proc = c),
    Math,
    Float32Array,
    Int16Array,
  });
  const p = new Proc();
  p.port.onmessage({ data: 'record' });
  for (let i = 0; i < input.length; i += 128) p.process([[input.subarray(i, i + 128)]]);
  p.port.onmessage({ data: 'stop' });
  const chunks = posted
    .filter((m): m is { pcm: ArrayBuffer } => typeof m === 'object' && m !== null && 'pcm' in m)
    .map((m) => new Int16Array(m.pcm));
  const all = new Int16Array(chunks.reduce((n, c) => n + c.length, 0));
  let off = 0;
  for (const c of chunks) {
    all.set(c, off);
    off += c.length;
  }
  for (const c of chunks.slice(0, -1)) assert.equal(c.length, 1600, 'every frame but the last is 100 ms');
  return { pcm: all, drained: posted.some((m) => typeof m === 'object' && m !== null && 'drained' in m) };
}

function sine(rate: number, hz: number, seconds: number, amp = 0.5): Float32Array {
  const x = new Float32Array(Math.round(rate * seconds));
  for (let i = 0; i < x.length; i++) x[i] = amp * Math.sin((2 * Math.PI * hz * i) / rate);
  return x;
}

function rms(x: Int16Array, from: number, to: number): number {
  let s = 0;
  for (let i = from; i < to; i++) s += (x[i]! / 32768) ** 2;
  return Math.sqrt(s / (to - from));
}

describe('capture page: the worklet resamples to 16 kHz', () => {
  for (const rate of [48000, 44100, 16000]) {
    it(`from ${rate} Hz: the length is right, a 1 kHz tone keeps its level and frequency`, () => {
      const { pcm, drained } = runWorklet(rate, sine(rate, 1000, 1));
      assert.equal(drained, true);
      assert.ok(Math.abs(pcm.length - 16000) <= 64, `${pcm.length} samples`);
      const level = rms(pcm, 400, 15000);
      assert.ok(Math.abs(level - 0.5 / Math.SQRT2) < 0.02, `rms ${level}`);
      // 1 kHz at 16 kHz: 16 samples a period; count the rising zero crossings
      let crossings = 0;
      for (let i = 401; i < 15400; i++) if (pcm[i - 1]! < 0 && pcm[i]! >= 0) crossings++;
      assert.ok(Math.abs(crossings - 937.5) <= 2, `${crossings} crossings`);
    });
  }
  it('from 48 kHz: a 12 kHz tone (above the new Nyquist) does not fold back', () => {
    const { pcm } = runWorklet(48000, sine(48000, 12000, 0.5));
    assert.ok(rms(pcm, 400, 7600) < 0.01, `rms ${rms(pcm, 400, 7600)}`);
  });
});
