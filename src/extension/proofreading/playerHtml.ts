/**
 * The Play Back webview: an `<audio>` element that plays the WAV it is sent (as a blob: URL, made in the
 * webview), and the sentence's words, each lit while it plays. Pure (no `vscode`): a string of HTML with
 * a strict content security policy (nothing from outside, only its own script).
 */

/** `&`, `<`, `>`, `"` escaped for HTML. */
function esc(s: string): string {
  return s.replace(/&/gu, '&amp;').replace(/</gu, '&lt;').replace(/>/gu, '&gt;').replace(/"/gu, '&quot;');
}

export function playerHtml(cspSource: string, nonce: string, text: { play: string; label: string }): string {
  return `<!DOCTYPE html>
<html>
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; media-src blob: data:; style-src ${cspSource} 'unsafe-inline'; script-src 'nonce-${nonce}';">
<style>
  body { font-family: var(--vscode-editor-font-family); font-size: var(--vscode-editor-font-size); color: var(--vscode-editor-foreground); }
  #words { line-height: 1.8; margin: 0.8em 0; }
  #words span { padding: 0 2px; border-radius: 3px; }
  #words span.lit { background: var(--vscode-editor-findMatchHighlightBackground); outline: 1px solid var(--vscode-editor-findMatchBorder, transparent); }
  audio { width: 100%; }
</style>
</head>
<body>
<audio id="audio" controls aria-label="${esc(text.label)}"></audio>
<div id="words" aria-live="off"></div>
<button id="again">${esc(text.play)}</button>
<script nonce="${nonce}">
  const audio = document.getElementById('audio');
  const box = document.getElementById('words');
  let words = [];
  let url;
  function light() {
    const ms = audio.currentTime * 1000;
    words.forEach((w, i) => box.children[i].classList.toggle('lit', ms >= w.startMs && ms < w.endMs));
    if (!audio.paused) requestAnimationFrame(light);
  }
  const vscode = acquireVsCodeApi();
  let told = true;
  audio.addEventListener('play', () => requestAnimationFrame(light));
  // The first sound of each Play Back, for the extension's log (how long the user waited).
  audio.addEventListener('playing', () => { if (!told) { told = true; vscode.postMessage({ type: 'playing' }); } });
  audio.addEventListener('ended', light);
  document.getElementById('again').addEventListener('click', () => { audio.currentTime = 0; void audio.play(); });
  window.addEventListener('message', (e) => {
    const m = e.data;
    if (!m || m.type !== 'play') return;
    const bytes = Uint8Array.from(atob(m.wav), (c) => c.charCodeAt(0));
    if (url) URL.revokeObjectURL(url);
    url = URL.createObjectURL(new Blob([bytes], { type: 'audio/wav' }));
    words = m.words;
    told = false;
    box.replaceChildren(...words.map((w) => { const s = document.createElement('span'); s.textContent = w.text; return s; }).flatMap((s, i) => i ? [document.createTextNode(' '), s] : [s]));
    audio.src = url;
    void audio.play();
  });
</script>
</body>
</html>`;
}
