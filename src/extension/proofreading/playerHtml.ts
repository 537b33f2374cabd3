/**
 * The Play Back webview: plays the 16-bit PCM it is sent with Web Audio (an AudioBuffer made from the
 * samples: no file to encode, load nor decode), and shows the sentence's words, each lit while it plays.
 * Its AudioContext is made as the page loads, while the sentence is on its way, and the page is kept
 * while hidden (`retainContextWhenHidden`), so a later Play Back starts at once. Pure (no `vscode`): a
 * string of HTML with a strict content security policy (nothing from outside, only its own script).
 */

/** `&`, `<`, `>`, `"` escaped for HTML. */
function esc(s: string): string {
  return s.replace(/&/gu, '&amp;').replace(/</gu, '&lt;').replace(/>/gu, '&gt;').replace(/"/gu, '&quot;');
}

/**
 * The message that plays a sentence: its audio (`pcm`, 16-bit little-endian mono at `sampleRate`), its
 * place in the run's audio (`startMs`, `endMs`), its words with times relative to its start, and when
 * the command ran (`askedAt`, the extension host's wall clock in ms), which the player sends back with
 * the moment its first sound starts: `{ type: 'playing', askedAt, at }`.
 */
export interface PlayMessage {
  type: 'play';
  pcm: Uint8Array;
  sampleRate: number;
  startMs: number;
  endMs: number;
  words: ShownWord[];
  askedAt: number;
}

/** A word shown, lit between its times (none: never lit). */
interface ShownWord {
  text: string;
  startMs?: number;
  endMs?: number;
}

/**
 * The sentence shown changed in the document: its words as it now reads (`words`, the audio kept), or it is gone (`clear`: the
 * player goes back to saying what it is for).
 */
export type PlayerUpdate = { type: 'words'; words: ShownWord[] } | { type: 'clear' };

/**
 * The page, with the sentence that opens it (`first`): it comes with the page, so it plays as soon as
 * the page runs, not after the webview has told the page's messages it is loaded.
 */
export function playerHtml(
  cspSource: string,
  nonce: string,
  text: { play: string; label: string; empty: string; atCursor: string },
  first?: PlayMessage,
): string {
  // In the script as JSON, the samples in base64; "<" escaped so that nothing in it ends the script.
  const firstJson = first
    ? JSON.stringify({
        ...first,
        pcm: Buffer.from(first.pcm.buffer, first.pcm.byteOffset, first.pcm.byteLength).toString('base64'),
      }).replace(/</gu, '\\u003c')
    : 'null';
  return `<!DOCTYPE html>
<html>
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src ${cspSource} 'unsafe-inline'; script-src 'nonce-${nonce}';">
<style>
  body { font-family: var(--vscode-editor-font-family); font-size: var(--vscode-editor-font-size); color: var(--vscode-editor-foreground); }
  #words { line-height: 1.8; margin: 0.8em 0; }
  #words:not(:has(span)) { opacity: 0.7; }
  #words span { padding: 0 2px; border-radius: 3px; }
  #words span.lit { background: var(--vscode-editor-findMatchHighlightBackground); outline: 1px solid var(--vscode-editor-findMatchBorder, transparent); }
</style>
</head>
<body>
<div id="words" role="group" aria-label="${esc(text.label)}" aria-live="off">${esc(text.empty)}</div>
<button id="again">${esc(first ? text.play : text.atCursor)}</button>
<script nonce="${nonce}">
  const clock = () => performance.timeOrigin + performance.now();
  /** When this page's script ran, its audio was made, the last sentence arrived, its first sound started (this machine's clock, ms). */
  const timing = { loadedAt: clock(), contextAt: 0, askedAt: 0, receivedAt: 0, firstSoundAt: 0 };
  const vscode = acquireVsCodeApi();
  const box = document.getElementById('words');
  const emptyText = box.textContent;
  const again = document.getElementById('again');
  const labels = ${JSON.stringify({ play: text.play, atCursor: text.atCursor }).replace(/</gu, '\\u003c')};
  // Made now, so that the audio output is open by the time the sentence arrives.
  const ctx = new AudioContext();
  timing.contextAt = clock();
  /** The sentence's samples: what plays. */
  let buffer;
  /** Where they are in the run's audio (ms). */
  let span;
  let words = [];
  let source;
  /** The context's time when the sentence's first sample plays. */
  let startedAt = 0;
  /** When the command ran, until its first sound is reported. */
  let asked;
  function light() {
    const ms = source ? (ctx.currentTime - startedAt) * 1000 : -1;
    words.forEach((w, i) => box.children[i].classList.toggle('lit', ms >= w.startMs && ms < w.endMs));
    if (source) requestAnimationFrame(light);
  }
  // The first sound of each Play Back, for the extension's log (how long the user waited): once the
  // audio thread has rendered past the sentence's first sample.
  function firstSound(s) {
    if (asked === undefined || source !== s) return;
    if (ctx.currentTime <= startedAt) { setTimeout(() => firstSound(s), 1); return; }
    timing.firstSoundAt = clock();
    vscode.postMessage({ type: 'playing', askedAt: asked, at: timing.firstSoundAt });
    asked = undefined;
  }
  function play() {
    // Nothing loaded (the view opened on its own): the extension plays the sentence at the editor's cursor.
    if (!buffer) { vscode.postMessage({ type: 'playAtCursor' }); return; }
    if (source) { source.onended = null; source.stop(); }
    const s = (source = ctx.createBufferSource());
    s.buffer = buffer;
    s.connect(ctx.destination);
    s.onended = () => { if (source === s) { source = undefined; light(); } };
    const start = () => {
      if (source !== s) return;
      startedAt = ctx.currentTime;
      s.start(startedAt);
      requestAnimationFrame(light);
      firstSound(s);
    };
    if (ctx.state === 'running') start();
    else void ctx.resume().then(start);
  }
  again.addEventListener('click', play);
  function load(m) {
    timing.receivedAt = clock();
    timing.askedAt = m.askedAt;
    const bytes = m.pcm instanceof ArrayBuffer ? new Uint8Array(m.pcm) : m.pcm;
    const n = bytes.byteLength >> 1;
    const pcm = new DataView(bytes.buffer, bytes.byteOffset, n * 2);
    buffer = ctx.createBuffer(1, Math.max(1, n), m.sampleRate);
    const ch = buffer.getChannelData(0);
    for (let i = 0; i < n; i++) ch[i] = pcm.getInt16(i * 2, true) / 32768;
    span = { startMs: m.startMs, endMs: m.endMs };
    asked = m.askedAt;
    again.textContent = labels.play;
    showWords(m.words);
    play();
  }
  function showWords(ws) {
    words = ws;
    box.replaceChildren(...words.map((w) => { const s = document.createElement('span'); s.textContent = w.text; return s; }).flatMap((s, i) => i ? [document.createTextNode(' '), s] : [s]));
  }
  function clear() {
    if (source) { source.onended = null; source.stop(); source = undefined; }
    buffer = undefined;
    span = undefined;
    words = [];
    box.textContent = emptyText;
    again.textContent = labels.atCursor;
  }
  window.addEventListener('message', (e) => {
    const m = e.data;
    if (!m) return;
    if (m.type === 'play') load(m);
    else if (m.type === 'words') showWords(m.words);
    else if (m.type === 'clear') clear();
  });
  const first = ${firstJson};
  if (first) {
    const b = atob(first.pcm);
    const pcm = new Uint8Array(b.length);
    for (let i = 0; i < b.length; i++) pcm[i] = b.charCodeAt(i);
    load({ ...first, pcm });
  }
</script>
</body>
</html>`;
}
