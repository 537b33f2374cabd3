/**
 * The capture page as served: its HTML (with the socket's token and the strings in the language of VS
 * Code, as data the script reads, never as script), its script, its style sheet, and the headers that
 * go with them (a strict Content-Security-Policy: nothing but the page's own origin, no inline script).
 */

/** The page's words, in the user's language (the extension translates them; English here as the fallback). */
export interface PageStrings {
  title: string;
  start: string;
  pause: string;
  stop: string;
  level: string;
  /** Shown beside the push-to-talk key, `{0}` the key. */
  holdToTalk: string;
  connecting: string;
  recording: string;
  paused: string;
  idle: string;
  stopping: string;
  /** The socket closed: the page is of no further use. */
  closed: string;
  /** The browser refused the microphone; `{0}` its reason. */
  micRefused: string;
  /** No audio is kept by the page. */
  privacy: string;
  /** The browser holds the sound back until the user clicks in the page (autoplay policy). */
  clickToStart: string;
  /** The button that pairs a dictation microphone (WebHID). */
  connectDevice: string;
  /** `{0}` the number of dictation microphones connected. */
  devices: string;
}

export const ENGLISH_PAGE_STRINGS: PageStrings = {
  title: 'Dictée: microphone',
  start: 'Start',
  pause: 'Pause',
  stop: 'Stop',
  level: 'Input level',
  holdToTalk: 'Hold {0} to talk, release it to pause.',
  connecting: 'Connecting…',
  recording: 'Recording',
  paused: 'Paused',
  idle: 'Not dictating',
  stopping: 'Finishing…',
  closed: 'This page is closed. Start dictation again in VS Code to open a new one.',
  micRefused: 'The browser did not give the microphone: {0}',
  privacy: 'The sound goes only to VS Code while recording; this page keeps nothing.',
  clickToStart: 'The browser waits for a click: click Start to record.',
  connectDevice: 'Connect a dictation microphone…',
  devices: 'Dictation microphones connected: {0}',
};

/** What the page is told when it is served. */
interface PageConfig {
  /** The socket's single-use token. */
  socket: string;
  /** `toggle` or `pushToTalk`. */
  mode: string;
  /** The `KeyboardEvent.code` of the push-to-talk key. */
  key: string;
  /** BCP 47, for `<html lang>`. */
  lang: string;
  /** The dictation_support library is served (`hid.js`): dictation microphones over WebHID. */
  hid?: boolean;
  /** The record LED of each dictation state (dictationLeds.ts). */
  leds?: Record<string, { simple: number; pm3: number }>;
  strings: PageStrings;
}

/** JSON safe inside `<script type="application/json">` (no `<`, `>`, `&`, line separators). */
export function jsonForHtml(value: unknown): string {
  return JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

export const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** Headers of every response of the page's server. */
export const PAGE_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': CSP,
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'cross-origin-opener-policy': 'same-origin',
  'permissions-policy': 'microphone=(self), hid=(self)',
};

/** The page (relative addresses only, so that it works the same behind code-server's `/proxy/PORT/`). */
export function pageHtml(config: PageConfig): string {
  const s = config.strings;
  return `<!doctype html>
<html lang="${escapeHtml(config.lang)}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(s.title)}</title>
<link rel="stylesheet" href="page.css">
<script type="application/json" id="dictee-config">${jsonForHtml(config)}</script>
${config.hid ? '<script src="hid.js" defer></script>\n' : ''}<script src="app.js" defer></script>
</head>
<body>
<main>
<h1>${escapeHtml(s.title)}</h1>
<p id="state" role="status" aria-live="polite">${escapeHtml(s.connecting)}</p>
<p><span id="time">0:00</span></p>
<label for="level">${escapeHtml(s.level)}</label>
<meter id="level" min="0" max="1" low="0.02" high="0.9" optimum="0.3" value="0"></meter>
<div class="buttons">
<button id="start" type="button" disabled>${escapeHtml(s.start)}</button>
<button id="pause" type="button" disabled>${escapeHtml(s.pause)}</button>
<button id="stop" type="button" disabled>${escapeHtml(s.stop)}</button>
</div>
<p id="ptt" hidden></p>
<p><button id="hid" type="button" hidden>${escapeHtml(s.connectDevice)}</button> <span id="devices"></span></p>
<p id="error" role="alert" hidden></p>
<p class="small">${escapeHtml(s.privacy)}</p>
</main>
</body>
</html>
`;
}

export const PAGE_CSS = `body { font: 16px system-ui, sans-serif; margin: 0; background: #1e1e1e; color: #ddd; }
main { max-width: 32rem; margin: 2rem auto; padding: 0 1rem; }
h1 { font-size: 1.3rem; }
#state { font-size: 1.2rem; font-weight: bold; }
#time { font-variant-numeric: tabular-nums; font-size: 1.5rem; }
meter { width: 100%; height: 1.5rem; }
.buttons { display: flex; gap: .5rem; margin: 1rem 0; }
button { font-size: 1rem; padding: .5rem 1rem; }
#error { color: #f88; }
.small { font-size: .85rem; color: #aaa; }
`;

/**
 * The page's script: the microphone through the worklet, the socket (audio as binary messages of at most
 * 100 ms; `{"t":"paused"}` after the last audio of a recording; `{"t":"request","action":…}` for the
 * buttons and the push-to-talk key; `{"t":"buttons","mask":…}` for a dictation microphone's;
 * `{"t":"microphone","error":…,"message":…}` when the browser gives no microphone), and what
 * the server says (`{"t":"capture","on":…}` to record or not, `{"t":"state",…}` for the display and the
 * dictation microphones' record LED).
 */
export const APP_JS = String.raw`'use strict';
(function () {
  const cfg = JSON.parse(document.getElementById('dictee-config').textContent);
  const s = cfg.strings;
  const $ = (id) => document.getElementById(id);
  const wsUrl = new URL('ws?s=' + encodeURIComponent(cfg.socket), location.href);
  wsUrl.protocol = location.protocol === 'https:' ? 'wss:' : 'ws:';
  let ws;
  let ctx;
  let node;
  let stream;
  let wantRecording = false;
  let recording = false;
  let samples = 0;
  let closed = false;
  let dictationState = 'idle';
  let leds = () => undefined;
  const stateText = { connecting: s.connecting, recording: s.recording, paused: s.paused, idle: s.idle, stopping: s.stopping };
  function send(obj) { if (ws && ws.readyState === 1) ws.send(JSON.stringify(obj)); }
  function request(action) { send({ t: 'request', action: action }); }
  function showTime() {
    const sec = Math.floor(samples / 16000);
    $('time').textContent = Math.floor(sec / 60) + ':' + String(sec % 60).padStart(2, '0');
  }
  function showError(text) { $('error').hidden = false; $('error').textContent = text; }
  function setButtons(state) {
    $('start').disabled = closed || state === 'recording' || state === 'stopping';
    $('pause').disabled = closed || state !== 'recording';
    $('stop').disabled = closed || state === 'idle' || state === 'stopping';
  }
  async function openMicrophone() {
    if (stream) return true;
    try {
      // Outside a secure context (http on another host than localhost) the browser has no mediaDevices.
      if (!navigator.mediaDevices || !navigator.mediaDevices.getUserMedia) {
        const e = new Error('the page is not a secure context (https or localhost), so the browser offers no microphone');
        e.name = 'InsecureContextError';
        throw e;
      }
      stream = await navigator.mediaDevices.getUserMedia({ audio: { channelCount: 1, echoCancellation: false } });
      ctx = new AudioContext();
      await ctx.audioWorklet.addModule('worklet.js');
      node = new AudioWorkletNode(ctx, 'dictee-pcm', { numberOfInputs: 1, numberOfOutputs: 0, channelCount: 1, channelCountMode: 'explicit' });
      node.port.onmessage = (e) => {
        const m = e.data;
        if (m.level !== undefined) $('level').value = Math.min(1, m.level);
        if (m.pcm && ws && ws.readyState === 1) { ws.send(m.pcm); samples += m.pcm.byteLength / 2; showTime(); }
        if (m.drained) send({ t: 'paused' });
      };
      ctx.createMediaStreamSource(stream).connect(node);
      // Without a click or a key in the page, the browser may hold the sound back (autoplay policy).
      if (ctx.state !== 'running') {
        void ctx.resume();
        if (ctx.state !== 'running') { $('state').textContent = s.clickToStart; $('start').disabled = false; }
      }
      return true;
    } catch (e) {
      const message = e && e.message ? String(e.message) : String(e);
      showError(s.micRefused.replace('{0}', message));
      // VS Code tells the user too, and ends the run (nothing can be recorded).
      send({ t: 'microphone', error: e && e.name ? String(e.name) : 'Error', message: message.slice(0, 200) });
      closeMicrophone();
      return false;
    }
  }
  function closeMicrophone() {
    if (stream) for (const t of stream.getTracks()) t.stop();
    if (ctx) void ctx.close();
    stream = undefined; ctx = undefined; node = undefined;
  }
  // Push-to-talk: nothing is recorded unless the key is held, however dictation was started.
  const ptt = cfg.mode === 'pushToTalk';
  let held = false;
  async function capture(on) {
    if (on && ptt && !held) on = false;
    wantRecording = on;
    if (on && !recording) {
      // No microphone: the page has said why (the run ends); it has nothing more to send.
      if (!(await openMicrophone()) || !wantRecording) { if (!wantRecording) return; send({ t: 'paused' }); return; }
      recording = true;
      node.port.postMessage('record');
    } else if (!on && recording) {
      recording = false;
      node.port.postMessage('stop');
    } else if (!on) {
      send({ t: 'paused' });
    }
  }
  function connect() {
    ws = new WebSocket(wsUrl.href);
    ws.binaryType = 'arraybuffer';
    ws.onmessage = (e) => {
      if (typeof e.data !== 'string') return;
      const m = JSON.parse(e.data);
      if (m.t === 'capture') void capture(Boolean(m.on));
      else if (m.t === 'state') {
        $('state').textContent = stateText[m.state] || m.state;
        setButtons(m.state);
        dictationState = String(m.state);
        leds();
        if (ptt && !held && m.state === 'recording') request('pause');
      }
    };
    ws.onclose = () => {
      closed = true;
      recording = false;
      closeMicrophone();
      dictationState = 'idle';
      leds();
      $('state').textContent = s.closed;
      setButtons('idle');
    };
  }
  const wake = () => { if (ctx && ctx.state !== 'running') void ctx.resume(); };
  window.addEventListener('pointerdown', wake);
  window.addEventListener('keydown', wake);
  $('start').addEventListener('click', () => { void openMicrophone().then((ok) => { if (ok) request('start'); }); });
  $('pause').addEventListener('click', () => request('pause'));
  $('stop').addEventListener('click', () => request('stop'));
  if (ptt) {
    $('ptt').hidden = false;
    $('ptt').textContent = s.holdToTalk.replace('{0}', cfg.key);
    window.addEventListener('keydown', (e) => {
      if (e.code !== cfg.key) return;
      e.preventDefault();
      if (e.repeat || held) return;
      held = true;
      void openMicrophone().then((ok) => { if (ok && held) request('start'); });
    });
    const release = () => { if (held) { held = false; request('pause'); } };
    window.addEventListener('keyup', (e) => { if (e.code === cfg.key) { e.preventDefault(); release(); } });
    window.addEventListener('blur', release);
  }
  // Dictation microphones (dictation_support over WebHID): each change of buttons goes to VS Code as a mask;
  // the record LED of each shows the dictation's state.
  if (window.DictationSupport && navigator.hid) {
    const lib = window.DictationSupport;
    const manager = new lib.DictationDeviceManager(navigator.hid);
    const count = () => { $('devices').textContent = s.devices.replace('{0}', String(manager.getDevices().length)); };
    const types = lib.ImplementationType || {};
    const led = (device) => {
      const plan = cfg.leds && (cfg.leds[dictationState] || cfg.leds.idle);
      if (!plan) return;
      let done;
      try {
        if (device.implType === types.SPEECHMIKE_HID && typeof device.setSimpleLedState === 'function') done = device.setSimpleLedState(plan.simple);
        else if (device.implType === types.POWERMIC_3 && typeof device.setLed === 'function') done = device.setLed(plan.pm3);
      } catch (e) { done = Promise.reject(e); }
      if (done && done.catch) done.catch(() => undefined);
    };
    manager.addButtonEventListener((_device, mask) => send({ t: 'buttons', mask: mask }));
    manager.addDeviceConnectedEventListener((d) => { count(); led(d); });
    manager.addDeviceDisconnectedEventListener(count);
    void manager.init().then(() => {
      $('hid').hidden = false;
      count();
      leds = () => { for (const d of manager.getDevices()) led(d); };
      leds();
      $('hid').addEventListener('click', () => { void manager.requestDevice().then(count, (e) => showError(String(e && e.message ? e.message : e))); });
    }, (e) => showError(String(e && e.message ? e.message : e)));
  }
  connect();
})();
`;
