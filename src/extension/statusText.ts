/**
 * What the status-bar item shows in each state: text, tooltip (Markdown with command links) and an
 * accessible label. Pure (no `vscode`), tested in plain Node; the texts are stable (end-to-end tests
 * read them).
 */

export type DictationState = 'idle' | 'connecting' | 'recording' | 'paused' | 'stopping';

export interface StatusInfo {
  state: DictationState;
  /** Milliseconds of recording so far (pauses excluded). */
  elapsedMs: number;
  /** The connection is being re-established (the run goes on). */
  reconnecting?: boolean;
  /** Seconds until a retry after RATE_LIMITED. */
  retryInS?: number;
  /** Shown until the next run starts: the last error. */
  error?: string;
  /** The microphone sends only silence. */
  muted?: boolean;
  /** The name of the target document. */
  target?: string;
  keybinding?: string;
}

export interface StatusView {
  text: string;
  tooltip: string;
  accessibilityLabel: string;
  warning: boolean;
}

/** `m:ss` (or `h:mm:ss`). */
export function formatElapsed(ms: number): string {
  const total = Math.max(0, Math.floor(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  const ss = String(s).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${ss}` : `${m}:${ss}`;
}

/** Escapes text for a Markdown tooltip. */
function md(text: string): string {
  return text.replace(/[\\`*_{}[\]()#+\-.!|<>]/g, '\\$&');
}

const LINKS = {
  start: '[$(mic) Start](command:dictee.start "Start Dictation")',
  pause: '[$(debug-pause) Pause](command:dictee.pause "Pause Dictation")',
  resume: '[$(debug-continue) Resume](command:dictee.resume "Resume Dictation")',
  stop: '[$(debug-stop) Stop](command:dictee.stop "Stop Dictation")',
  log: '[$(output) Show Log](command:dictee.showLog "Show Log")',
};

/** The commands the tooltip links to (the MarkdownString trusts exactly these). */
export const TOOLTIP_COMMANDS = ['dictee.start', 'dictee.pause', 'dictee.resume', 'dictee.stop', 'dictee.showLog'];

export function statusView(info: StatusInfo): StatusView {
  const elapsed = formatElapsed(info.elapsedMs);
  const kb = info.keybinding ? ` (${info.keybinding})` : '';
  const target = info.target ? ` into **${md(info.target)}**` : '';
  switch (info.state) {
    case 'idle':
      if (info.error) {
        return {
          text: '$(warning) Dictée',
          tooltip: `**Dictée: ${md(info.error)}**\n\nClick to start dictating again${md(kb)}.\n\n${LINKS.start} · ${LINKS.log}`,
          accessibilityLabel: `Dictée: error: ${info.error}. Click to start dictation.`,
          warning: true,
        };
      }
      return {
        text: '$(mic) Dictée',
        tooltip: `**Dictée** is ready. Click to start dictating at the cursor${md(kb)}.\n\n${LINKS.start} · ${LINKS.log}`,
        accessibilityLabel: 'Dictée: ready. Click to start dictation.',
        warning: false,
      };
    case 'connecting':
      if (info.retryInS !== undefined) {
        return {
          text: `$(watch) Dictée: retry in ${info.retryInS}s`,
          tooltip: `**Dictée** is connecting to the service${target}: the service asked to wait, retrying in ${info.retryInS} s. Speak now: your audio is kept.\n\n${LINKS.stop} · ${LINKS.log}`,
          accessibilityLabel: `Dictée: connecting, retry in ${info.retryInS} seconds. Click to stop dictation.`,
          warning: true,
        };
      }
      return {
        text: '$(loading~spin) Dictée: connecting',
        tooltip: `**Dictée** is connecting to the service${target}. Speak now: nothing is lost.\n\n${LINKS.stop} · ${LINKS.log}`,
        accessibilityLabel: 'Dictée: connecting. Click to stop dictation.',
        warning: false,
      };
    case 'recording': {
      let text = `$(record) ${elapsed}`;
      let note = '';
      let warning = false;
      if (info.retryInS !== undefined) {
        text = `$(watch) ${elapsed} retry in ${info.retryInS}s`;
        note = `\n\nThe service asked to wait: retrying in ${info.retryInS} s. Your audio is kept.`;
        warning = true;
      } else if (info.reconnecting) {
        text = `$(loading~spin) ${elapsed} reconnecting`;
        note = '\n\nThe connection was lost: reconnecting. Your audio is kept and sent once connected.';
        warning = true;
      } else if (info.muted) {
        text = `$(mute) ${elapsed}`;
        note = '\n\nThe microphone sends only silence: is it muted, or is access to it not permitted?';
        warning = true;
      }
      return {
        text,
        tooltip: `**Dictée** is recording${target} (${elapsed}).${note}\n\n${LINKS.pause} · ${LINKS.stop} · ${LINKS.log}`,
        accessibilityLabel: `Dictée: recording, ${elapsed}. Click to stop dictation.`,
        warning,
      };
    }
    case 'paused':
      return {
        text: `$(debug-pause) Paused ${elapsed}`,
        tooltip: `**Dictée** is paused${target} (${elapsed}); the microphone is off.\n\n${LINKS.resume} · ${LINKS.stop} · ${LINKS.log}`,
        accessibilityLabel: `Dictée: paused at ${elapsed}. Click to stop dictation.`,
        warning: false,
      };
    case 'stopping':
      return {
        text: '$(loading~spin) Dictée: stopping',
        tooltip: `**Dictée** is finishing: the last words are being written${target}.\n\n${LINKS.log}`,
        accessibilityLabel: 'Dictée: stopping.',
        warning: false,
      };
  }
}
