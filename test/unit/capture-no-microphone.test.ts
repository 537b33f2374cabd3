/**
 * A run whose source gives no audio: the capture page's report that the browser gave no microphone (the
 * page's own script in a sandbox, the words the user is told, the status), the no-audio watch (no frames,
 * not silence), and the run's log naming the source it uses.
 */
import assert from 'node:assert/strict';
import * as vm from 'node:vm';
import { APP_JS, ENGLISH_PAGE_STRINGS } from '../../src/audio/browser/pageAssets';
import { INSECURE_CONTEXT, microphoneProblem, PageMicrophoneError, parseMicrophoneReport } from '../../src/audio/browser/pageMicrophone';
import { NoAudioWatch, type NoAudioEvent } from '../../src/audio/noAudio';
import { SilenceDetector } from '../../src/audio/silence';
import { ENGLISH } from '../../src/extension/l10nText';
import { noAudioText, pageMicrophoneText, sourceFailedCause } from '../../src/extension/run/errorText';
import { sourceForLog, wireCapture, type CaptureRun } from '../../src/extension/run/runCapture';
import { statusView } from '../../src/extension/ui/statusText';
import { TypedEmitter } from '../../src/shared/events';
import type { LiveAudioSource } from '../../src/audio/capture';

/** The page's script with a browser whose getUserMedia fails with `fail` (or with no mediaDevices at all). */
async function pageWithoutMicrophone(fail: { name: string; message: string } | 'insecure'): Promise<{ sent: unknown[]; error: string }> {
  const elements = new Map<string, { hidden: boolean; textContent: string; disabled: boolean; value: number; addEventListener(): void }>();
  const el = (id: string) => {
    if (!elements.has(id))
      elements.set(id, { hidden: true, textContent: '', disabled: false, value: 0, addEventListener: () => undefined });
    return elements.get(id)!;
  };
  const config = { socket: 'tok', mode: 'toggle', key: 'Space', lang: 'en', strings: ENGLISH_PAGE_STRINGS };
  elements.set('dictee-config', { ...el('x'), textContent: JSON.stringify(config) });
  const sent: unknown[] = [];
  let socket: { onmessage?: (e: { data: string }) => void } | undefined;
  class FakeSocket {
    readyState = 1;
    binaryType = '';
    onmessage?: (e: { data: string }) => void;
    onclose?: () => void;
    constructor() {
      socket = this;
    }
    send(d: unknown) {
      sent.push(typeof d === 'string' ? JSON.parse(d) : d);
    }
  }
  const navigator =
    fail === 'insecure'
      ? {}
      : {
          mediaDevices: {
            getUserMedia: () => Promise.reject(Object.assign(new Error(fail.message), { name: fail.name })),
          },
        };
  vm.runInNewContext(APP_JS, {
    document: { getElementById: el },
    location: { href: 'http://127.0.0.1:1234/d/page', protocol: 'http:' },
    URL,
    JSON,
    String,
    Math,
    Boolean,
    Promise,
    Error,
    WebSocket: FakeSocket,
    window: { addEventListener: () => undefined },
    navigator,
  });
  socket!.onmessage!({ data: JSON.stringify({ t: 'state', state: 'recording' }) });
  socket!.onmessage!({ data: JSON.stringify({ t: 'capture', on: true }) });
  for (let i = 0; i < 10; i++) await new Promise((r) => setImmediate(r));
  return { sent, error: el('error').textContent };
}

describe('capture page: the browser gives no microphone', () => {
  it('the page reports the refusal with its name, says why, and sends no pause request (VS Code ends the run)', async () => {
    const { sent, error } = await pageWithoutMicrophone({ name: 'NotFoundError', message: 'Requested device not found' });
    assert.equal(error, 'The browser did not give the microphone: Requested device not found');
    assert.deepEqual(sent, [{ t: 'microphone', error: 'NotFoundError', message: 'Requested device not found' }, { t: 'paused' }]);
  });

  it('a page that is not a secure context (no mediaDevices) reports it by a name of its own', async () => {
    const { sent } = await pageWithoutMicrophone('insecure');
    const report = sent[0] as { t: string; error: string };
    assert.equal(report.t, 'microphone');
    assert.equal(report.error, INSECURE_CONTEXT);
    assert.equal(microphoneProblem(report.error), 'insecure');
  });

  it('names map to what a person understands', () => {
    assert.equal(microphoneProblem('NotFoundError'), 'notFound');
    assert.equal(microphoneProblem('OverconstrainedError'), 'notFound');
    assert.equal(microphoneProblem('NotAllowedError'), 'denied');
    assert.equal(microphoneProblem('SecurityError'), 'denied');
    assert.equal(microphoneProblem('NotReadableError'), 'busy');
    assert.equal(microphoneProblem('AbortError'), 'busy');
    assert.equal(microphoneProblem('TypeError'), 'other');
    assert.equal(microphoneProblem('constructor'), 'other');
  });

  it('the report is checked: a name of letters, a message cut and without control characters', () => {
    assert.deepEqual(parseMicrophoneReport({ t: 'microphone', error: 'NotFoundError', message: 'Requested\ndevice' }), {
      name: 'NotFoundError',
      message: 'Requested device',
    });
    assert.equal(parseMicrophoneReport({ error: 'NotFound Error' }), undefined);
    assert.equal(parseMicrophoneReport({ error: 42 }), undefined);
    assert.equal(parseMicrophoneReport({ error: 'NotFoundError', message: {} }), undefined);
    assert.equal(parseMicrophoneReport({ error: 'A', message: 'x'.repeat(1000) })!.message.length, 200);
  });

  it('the notification says the cause and what to do, with Open Settings on dictee.audio.source; the status keeps the cause', () => {
    const origin = 'https://code.example.org';
    const notFound = pageMicrophoneText(ENGLISH, new PageMicrophoneError('NotFoundError', 'Requested device not found', origin));
    assert.equal(notFound.severity, 'error');
    assert.match(
      notFound.text,
      /found no microphone.*Plug in a microphone.*click Start on the capture page.*"Audio: Source" to "recorder"/s,
    );
    assert.deepEqual(notFound.actions, ['openSettings', 'showLog']);
    assert.equal(notFound.setting, 'dictee.audio.source');
    assert.equal(notFound.cause, 'the browser found no microphone.');
    const denied = pageMicrophoneText(ENGLISH, new PageMicrophoneError('NotAllowedError', 'Permission denied', origin));
    assert.match(
      denied.text,
      /denied the microphone.*Allow the microphone for https:\/\/code\.example\.org in the browser's site permissions/s,
    );
    assert.match(pageMicrophoneText(ENGLISH, new PageMicrophoneError('NotReadableError', '')).text, /another application may be using it/);
    assert.match(pageMicrophoneText(ENGLISH, new PageMicrophoneError('NotAllowedError', '')).text, /for this code-server address/);
    assert.match(
      pageMicrophoneText(ENGLISH, new PageMicrophoneError(INSECURE_CONTEXT, '', 'http://10.0.0.2:8080')).text,
      /https.*http:\/\/10\.0\.0\.2:8080/,
    );
    assert.match(pageMicrophoneText(ENGLISH, new PageMicrophoneError('WeirdError', '')).text, /\(WeirdError\)/);
    assert.equal(sourceFailedCause(ENGLISH, new PageMicrophoneError('NotFoundError', '')), 'the browser found no microphone.');
    assert.equal(sourceFailedCause(ENGLISH, new Error('sox exited')), 'the recorder failed.');
  });
});

/** A live source the test drives. */
function fakeSource(): LiveAudioSource & { emit: TypedEmitter<{ data: Buffer; error: Error }>['emit'] } {
  const e = new TypedEmitter<{ data: Buffer; error: Error }>();
  return { start: () => undefined, stop: async () => undefined, on: (ev, l) => e.on(ev, l), emit: (ev, v) => e.emit(ev, v) };
}

describe('a run whose capture page gets no microphone', () => {
  it('the run is told the source failed, the user is told why, and the run ends', () => {
    const source = fakeSource();
    const told: Array<[string, unknown]> = [];
    const run = {
      id: 1,
      settings: { recorder: 'sox', sampleRate: 16000 },
      source: { kind: 'microphone', browser: source },
      session: { sendAudio: () => undefined },
      silence: new SilenceDetector({ sampleRate: 16000 }),
      log: { debug: () => undefined, info: () => undefined, warn: () => undefined, error: (m: string) => told.push(['log', m]) },
      status: { level: () => undefined, update: () => undefined },
      notifications: { recorderFailed: (e: Error) => told.push(['notify', e]), microphoneMuted: () => undefined },
      audio: () => undefined,
      isEnding: () => false,
      end: (reason: string) => told.push(['end', reason]),
      fileDone: () => undefined,
      recorderFailed: (e: Error) => told.push(['failed', e]),
      fatalFile: () => undefined,
    } as unknown as CaptureRun;
    wireCapture(source, run);
    const e = new PageMicrophoneError('NotFoundError', 'Requested device not found', 'https://code.example.org');
    source.emit('error', e);
    assert.deepEqual(told, [
      ['failed', e],
      ['log', 'capture page: the browser gave the capture page no microphone: NotFoundError: Requested device not found'],
      ['notify', e],
      ['end', 'the browser gave the capture page no microphone'],
    ]);
  });

  it("the run's log line names the source it uses", () => {
    const settings = { recorder: 'sox' as const, device: '' };
    assert.equal(sourceForLog({ kind: 'microphone', browser: fakeSource() }, settings), 'audio from the capture page in the browser');
    assert.equal(sourceForLog({ kind: 'microphone' }, settings), 'audio from recorder sox');
    assert.equal(sourceForLog({ kind: 'microphone' }, { recorder: 'arecord', device: 'hw:1' }), 'audio from recorder arecord device hw:1');
    assert.equal(sourceForLog({ kind: 'file', path: '/a.wav', seconds: 1, progress: () => undefined }, settings), 'audio from the file');
  });
});

describe('the no-audio watch: no frames, not silence', () => {
  function watch(afterMs = 5000) {
    const events: NoAudioEvent[] = [];
    const timers: Array<{ fn: () => void; live: boolean }> = [];
    const w = new NoAudioWatch(afterMs, (e) => events.push(e), {
      set: (fn) => {
        const t = { fn, live: true };
        timers.push(t);
        return t;
      },
      clear: (t) => void ((t as { live: boolean }).live = false),
    });
    const elapse = () => {
      for (const t of timers.splice(0)) if (t.live) t.fn();
    };
    return { w, events, elapse };
  }

  it('no frame within the window after start: told once, first; audio back is told; a second window is not "first"', () => {
    const { w, events, elapse } = watch();
    w.arm();
    elapse();
    assert.deepEqual(events, [{ kind: 'none', afterMs: 5000, first: true }]);
    assert.equal(w.silentSource, true);
    w.delivered();
    w.delivered();
    assert.deepEqual(events.slice(1), [{ kind: 'back' }]);
    w.arm(); // resumed
    elapse();
    assert.deepEqual(events.slice(2), [{ kind: 'none', afterMs: 5000, first: false }]);
  });

  it('a quiet room delivers frames of zeros: that is audio, never reported (the muted warning judges silence)', () => {
    const { w, events, elapse } = watch();
    const source = fakeSource();
    source.on('data', () => w.delivered());
    w.arm();
    source.emit('data', Buffer.alloc(3200)); // 100 ms of digital silence
    elapse();
    assert.deepEqual(events, []);
  });

  it('paused or ended before the window: nothing is reported', () => {
    const { w, events, elapse } = watch();
    w.arm();
    w.disarm();
    elapse();
    assert.deepEqual(events, []);
  });

  it('the user is told in words, for the capture page and for the recorder; the status says "no audio", not "recording" alone', () => {
    const page = noAudioText(ENGLISH, { page: true }, 15);
    assert.equal(page.severity, 'warning');
    assert.match(page.text, /no audio has reached VS Code from the capture page for 15 s/);
    const rec = noAudioText(ENGLISH, { page: false, recorder: 'sox' }, 5);
    assert.match(rec.text, /the recorder "sox" has delivered no audio for 5 s/);
    assert.deepEqual(rec.actions, ['selectMicrophone', 'showLog']);
    const v = statusView(ENGLISH, { state: 'recording', elapsedMs: 16_000, noAudio: true });
    assert.equal(v.text, '$(warning) Dictée 0:16 no audio');
    assert.equal(v.colour, 'warning');
    assert.match(v.tooltip, /No audio arrives from the microphone: nothing is being recorded/);
    assert.match(v.accessibilityLabel, /no audio arrives/);
  });
});
