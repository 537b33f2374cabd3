/**
 * What the status-bar items show in each state: text, tooltip (Markdown with command links), an
 * accessible label, the command a click runs and the colour. Pure (no `vscode`), tested in plain Node.
 * The state is never told by colour alone: each state has its own icon and words.
 */
import type { Language, Specialty } from '../../protocol/config';
import type { L10n } from '../l10nText';

export type DictationState = 'idle' | 'connecting' | 'recording' | 'paused' | 'stopping';

export interface StatusInfo {
  state: DictationState;
  /** Milliseconds of recording so far (pauses excluded). */
  elapsedMs: number;
  /** The connection is being re-established (the run goes on). */
  reconnecting?: boolean;
  /** Seconds until a retry after RATE_LIMITED, or while the service's speech recogniser is unavailable. */
  retryInS?: number;
  /** With `retryInS`: the wait is for the service's speech recogniser (a remote engine that is down), not a rate limit. */
  recogniserUnavailable?: boolean;
  /** Shown until the next run starts: the last error, as the user was told it. */
  error?: string;
  /** The microphone sends only silence. */
  muted?: boolean;
  /** No audio at all arrives from the source (no frames: not silence), so nothing is recorded. */
  noAudio?: boolean;
  /** The name of the target document. */
  target?: string;
  /** The keybinding of "Toggle Dictation" as the user has it (e.g. `Ctrl+Alt+Shift+D`), if any. */
  keybinding?: string;
  /** The dictation language and vocabulary of the next (or current) run. */
  language?: Language;
  specialty?: Specialty;
  /** The input device (empty: the system default). */
  device?: string;
  /** The service's engine, once a run has been configured (`simulated` writes a script, not speech). */
  engine?: string;
  /** The input level, 0–1 (peak of the last fraction of a second), while recording. */
  level?: number;
  /** What a run is writing from: the microphone, or an audio file (its name). */
  file?: string;
  /** The run's audio file was sent to its end: the service is writing its last words (the run is not stopping). */
  finishing?: boolean;
}

/** Which status-bar colour to use. */
export type StatusColour = 'none' | 'recording' | 'warning' | 'error';

interface StatusView {
  text: string;
  tooltip: string;
  accessibilityLabel: string;
  colour: StatusColour;
  /** What a click does. */
  command: 'dictee.start' | 'dictee.stop' | 'dictee.resume' | undefined;
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

const BARS = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];

/** A one-character level meter for a level in 0–1 (shown beside the elapsed time). */
export function levelBar(level: number | undefined): string {
  if (level === undefined || !Number.isFinite(level)) return '';
  const i = Math.min(BARS.length - 1, Math.max(0, Math.round(level * (BARS.length - 1))));
  return BARS[i]!;
}

/** The name of a language in the user's language. */
export function languageName(l10n: L10n, language: Language): string {
  switch (language) {
    case 'fr':
      return l10n.t('French');
    case 'en':
      return l10n.t('English');
    case 'es':
      return l10n.t('Spanish');
    case 'de':
      return l10n.t('German');
  }
}

/** Whether the service serves `language`, as it says (`served` undefined: it does not say; `any`: every language). */
export function serves(served: readonly string[] | undefined, language: Language): boolean {
  return !served || served.includes('any') || served.includes(language);
}

/** What the language picker says beside a language: `detail` (its code, or the language of VS Code), and when the service does not serve it. */
export function languageRowNote(l10n: L10n, language: Language, detail: string, served: readonly string[] | undefined): string {
  return serves(served, language) ? detail : l10n.t('{0} — the service does not take dictation in this language', detail);
}

/** The name of a vocabulary (specialty) in the user's language. */
export function specialtyName(l10n: L10n, specialty: Specialty): string {
  switch (specialty) {
    case 'general':
      return l10n.t('General');
    case 'radiology':
      return l10n.t('Radiology');
    case 'cardiology':
      return l10n.t('Cardiology');
    case 'legal':
      return l10n.t('Legal');
  }
}

/** The commands the tooltips link to (the MarkdownString trusts exactly these). */
export const TOOLTIP_COMMANDS = [
  'dictee.start',
  'dictee.pause',
  'dictee.resume',
  'dictee.stop',
  'dictee.showLog',
  'dictee.selectMicrophone',
  'dictee.chooseLanguage',
];

function links(l10n: L10n): Record<'start' | 'pause' | 'resume' | 'stop' | 'log' | 'mic' | 'language', string> {
  const link = (icon: string, label: string, command: string): string =>
    `[$(${icon}) ${md(label)}](command:${command} "${label.replace(/"/g, "'")}")`;
  return {
    start: link('mic', l10n.t('Start'), 'dictee.start'),
    pause: link('dictee-pause', l10n.t('Pause'), 'dictee.pause'),
    resume: link('dictee-resume', l10n.t('Resume'), 'dictee.resume'),
    stop: link('dictee-stop', l10n.t('Stop'), 'dictee.stop'),
    log: link('output', l10n.t('Show Log'), 'dictee.showLog'),
    mic: link('settings-gear', l10n.t('Select Microphone'), 'dictee.selectMicrophone'),
    language: link('globe', l10n.t('Change Language'), 'dictee.chooseLanguage'),
  };
}

/** The lines every tooltip ends with: language, microphone, engine. */
function details(l10n: L10n, info: StatusInfo): string {
  const lines: string[] = [];
  if (info.language) {
    const lang = languageName(l10n, info.language);
    lines.push(
      info.specialty
        ? l10n.t('Language: {0}, vocabulary: {1}.', lang, specialtyName(l10n, info.specialty))
        : l10n.t('Language: {0}.', lang),
    );
  }
  if (info.file) lines.push(l10n.t('Transcribing the audio file {0}.', `**${md(info.file)}**`));
  else lines.push(info.device ? l10n.t('Microphone: {0}.', `**${md(info.device)}**`) : l10n.t('Microphone: the system default.'));
  if (info.engine === 'simulated') {
    lines.push(
      l10n.t('$(warning) The service runs the **simulated** engine: it writes a prepared script, it does not recognise your speech.'),
    );
  }
  return lines.map((l) => `${l}\n\n`).join('');
}

export function statusView(l10n: L10n, info: StatusInfo): StatusView {
  const L = links(l10n);
  const elapsed = formatElapsed(info.elapsedMs);
  const kb = info.keybinding ? ` (${md(info.keybinding)})` : '';
  const into = info.target ? l10n.t('into {0}', `**${md(info.target)}**`) : '';
  const more = details(l10n, info);
  switch (info.state) {
    case 'idle':
      if (info.error) {
        return {
          text: `$(error) Dictée`,
          tooltip: `**Dictée**: ${md(info.error)}\n\n${l10n.t('Click to dictate again{0}.', kb)}\n\n${more}${L.start} · ${L.mic} · ${L.log}`,
          accessibilityLabel: l10n.t('Dictée: stopped after an error: {0} Click to dictate again.', info.error),
          colour: 'error',
          command: 'dictee.start',
        };
      }
      return {
        text: '$(mic) Dictée',
        tooltip: `${l10n.t('**Dictée** is ready. Click to dictate at the cursor{0}.', kb)}\n\n${more}${L.start} · ${L.mic} · ${L.language} · ${L.log}`,
        accessibilityLabel: l10n.t('Dictée: ready. Click to dictate at the cursor.'),
        colour: 'none',
        command: 'dictee.start',
      };
    case 'connecting':
      if (info.retryInS !== undefined && info.recogniserUnavailable) {
        return {
          text: `$(watch) Dictée ${l10n.t('recogniser unavailable, retry in {0} s', info.retryInS)}`,
          tooltip: `${l10n.t('**Dictée** is connecting to the service {0}: its speech recogniser is unavailable, next try in {1} s. Speak now: your audio is kept.', into, info.retryInS)}\n\n${more}${L.stop} · ${L.log}`,
          accessibilityLabel: l10n.t(
            'Dictée: connecting, the speech recogniser is unavailable, next try in {0} seconds. Click to stop.',
            info.retryInS,
          ),
          colour: 'warning',
          command: 'dictee.stop',
        };
      }
      if (info.retryInS !== undefined) {
        return {
          text: `$(watch) Dictée ${l10n.t('retry in {0} s', info.retryInS)}`,
          tooltip: `${l10n.t('**Dictée** is connecting to the service {0}: it asked to wait, next try in {1} s. Speak now: your audio is kept.', into, info.retryInS)}\n\n${more}${L.stop} · ${L.log}`,
          accessibilityLabel: l10n.t('Dictée: connecting, next try in {0} seconds. Click to stop.', info.retryInS),
          colour: 'warning',
          command: 'dictee.stop',
        };
      }
      return {
        text: `$(loading~spin) Dictée ${l10n.t('connecting')}`,
        tooltip: `${l10n.t('**Dictée** is connecting to the service. Speak now: nothing is lost.')}\n\n${more}${L.stop} · ${L.log}`,
        accessibilityLabel: l10n.t('Dictée: connecting. Click to stop.'),
        colour: 'none',
        command: 'dictee.stop',
      };
    case 'recording': {
      let text = `$(record) Dictée ${elapsed} ${levelBar(info.level)}`.trimEnd();
      let note = '';
      let colour: StatusColour = 'recording';
      let label = l10n.t('Dictée: recording, {0}. Click to stop.', elapsed);
      if (info.retryInS !== undefined && info.recogniserUnavailable) {
        text = `$(watch) Dictée ${elapsed} ${l10n.t('recogniser unavailable, retry in {0} s', info.retryInS)}`;
        note = l10n.t('The speech recogniser of the service is unavailable: next try in {0} s. Your audio is kept.', info.retryInS);
        colour = 'warning';
        label = l10n.t('Dictée: recording, {0}, the speech recogniser is unavailable, retrying. Click to stop.', elapsed);
      } else if (info.retryInS !== undefined) {
        text = `$(watch) Dictée ${elapsed} ${l10n.t('retry in {0} s', info.retryInS)}`;
        note = l10n.t('The service asked to wait: next try in {0} s. Your audio is kept.', info.retryInS);
        colour = 'warning';
        label = l10n.t('Dictée: recording, {0}, waiting for the service. Click to stop.', elapsed);
      } else if (info.reconnecting) {
        text = `$(loading~spin) Dictée ${elapsed} ${l10n.t('reconnecting')}`;
        note = l10n.t('The network connection to the service was lost: reconnecting. Your audio is kept and sent once connected.');
        colour = 'warning';
        label = l10n.t('Dictée: recording, {0}, reconnecting. Click to stop.', elapsed);
      } else if (info.noAudio) {
        text = `$(warning) Dictée ${elapsed} ${l10n.t('no audio')}`;
        note = l10n.t('No audio arrives from the microphone: nothing is being recorded.');
        colour = 'warning';
        label = l10n.t('Dictée: {0}, but no audio arrives from the microphone: nothing is being recorded. Click to stop.', elapsed);
      } else if (info.muted) {
        text = `$(warning) Dictée ${elapsed} ${l10n.t('no sound')}`;
        note = l10n.t('The microphone sends only silence: is it muted, or is access to it not permitted?');
        colour = 'warning';
        label = l10n.t('Dictée: recording, {0}, but the microphone sends only silence. Click to stop.', elapsed);
      }
      const head = info.file
        ? l10n.t('**Dictée** is transcribing {0} ({1}).', into, elapsed)
        : l10n.t('**Dictée** is recording {0} ({1}).', into, elapsed);
      return {
        text,
        tooltip: `${head}${note ? `\n\n${note}` : ''}\n\n${l10n.t('Click to stop{0}.', kb)}\n\n${more}${info.file ? L.stop : `${L.pause} · ${L.stop}`} · ${L.log}`,
        accessibilityLabel: label,
        colour,
        command: 'dictee.stop',
      };
    }
    case 'paused':
      return {
        text: `$(dictee-pause) Dictée ${l10n.t('paused')} ${elapsed}`,
        tooltip: `${l10n.t('**Dictée** is paused ({0}); the microphone is off. Click to resume dictating {1}.', elapsed, into)}\n\n${more}${L.resume} · ${L.stop} · ${L.log}`,
        accessibilityLabel: l10n.t('Dictée: paused at {0}. Click to resume.', elapsed),
        colour: 'none',
        command: 'dictee.resume',
      };
    case 'stopping':
      if (info.file && info.finishing) {
        return {
          text: `$(loading~spin) Dictée ${l10n.t('transcribing')} ${elapsed}`,
          tooltip: `${l10n.t('**Dictée** is transcribing {0}: the whole file was sent, the last words are being written {1}.', `**${md(info.file)}**`, into)}\n\n${L.log}`,
          accessibilityLabel: l10n.t('Dictée: transcribing the audio file, the last words are being written.'),
          colour: 'none',
          command: undefined,
        };
      }
      return {
        text: `$(loading~spin) Dictée ${l10n.t('stopping')}`,
        tooltip: `${l10n.t('**Dictée** is finishing: the last words are being written {0}.', into)}\n\n${L.log}`,
        accessibilityLabel: l10n.t('Dictée: stopping.'),
        colour: 'none',
        command: undefined,
      };
  }
}

/** The language item beside the main one: the language (and vocabulary) the next run uses; a click changes them. */
export function languageView(
  l10n: L10n,
  language: Language,
  specialty: Specialty,
  auto: boolean,
): { text: string; tooltip: string; accessibilityLabel: string } {
  const lang = languageName(l10n, language);
  const voc = specialtyName(l10n, specialty);
  const code = language.toUpperCase();
  const text = specialty === 'general' ? code : `${code} · ${voc}`;
  const follows = auto ? ` ${l10n.t('(the language of VS Code)')}` : '';
  return {
    text,
    tooltip: l10n.t('Dictation in {0}{1}, vocabulary: {2}. Click to change them for the next dictation.', lang, follows, voc),
    accessibilityLabel: l10n.t('Dictation language {0}, vocabulary {1}. Click to change.', lang, voc),
  };
}

/** The doubtful-words item: how many words of the active document the engine was unsure of (hidden at 0); a click goes to the next one. */
export function doubtfulView(l10n: L10n, count: number): { text: string; tooltip: string; accessibilityLabel: string } | undefined {
  if (count <= 0) return undefined;
  const words = count === 1 ? l10n.t('1 doubtful word') : l10n.t('{0} doubtful words', count);
  return {
    text: `$(eye) ${count}`,
    tooltip: l10n.t(
      'Dictée: {0} in this document, where the engine was unsure of what it heard. Click to go to the next one; change it, or accept it as it is.',
      words,
    ),
    accessibilityLabel: l10n.t('Dictée: {0}. Click to go to the next one.', words),
  };
}
