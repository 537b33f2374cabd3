/**
 * What the user is told when a run ends with an error, and which buttons go with it: plain sentences,
 * never an error code, a byte offset or the service's own words (those are in the log, once). Pure (no
 * `vscode`), tested in plain Node. Messages never contain the API key.
 */
import { type DictationError, initErrorCause, recogniserUnavailable } from '../../client/errors';
import { DEFAULT_SAMPLE_RATE, LANGUAGES, type Language } from '../../protocol/config';
import type { L10n } from '../l10nText';
import { PageMicrophoneError } from '../../audio/browser/pageMicrophone';
import { settingForField } from '../settingsMap';
import { languageName } from '../ui/statusText';

/** The buttons of an error message (the extension shows them with translated labels). */
export type ErrorAction = 'setApiKey' | 'openSettings' | 'retry' | 'selectMicrophone' | 'showLog';

interface ErrorPresentation {
  severity: 'error' | 'warning';
  text: string;
  actions: ErrorAction[];
  /** For "Open Settings": the setting (or settings query) to open. */
  setting?: string;
}

/** What the extension knows about the run beyond the error. */
export interface ErrorContext {
  serverUrl: string;
  /** The run had been recording (connected) before it failed: a network error is a lost connection. */
  wasConnected?: boolean;
  /** The language and sample rate the run sent in its `configure` (an INIT_ERROR names them). */
  language: Language;
  sampleRate: number;
}

/** The settings query that lists every Dictée setting. */
export const ALL_SETTINGS = '@ext:dictee.dictee';

/** The label of a button, in the user's language. */
export function actionLabel(l10n: L10n, a: ErrorAction): string {
  switch (a) {
    case 'setApiKey':
      return l10n.t('Set API Key');
    case 'openSettings':
      return l10n.t('Open Settings');
    case 'retry':
      return l10n.t('Retry');
    case 'selectMicrophone':
      return l10n.t('Select Microphone');
    case 'showLog':
      return l10n.t('Show Log');
  }
}

export function presentError(l10n: L10n, e: DictationError, ctx: ErrorContext): ErrorPresentation {
  switch (e.code) {
    case 'AUTH_ERROR':
      return {
        severity: 'error',
        text: l10n.t(
          'Dictée: the service refused the API key (it is unknown, revoked, or not allowed to dictate). Set a valid key, then dictate again.',
        ),
        actions: ['setApiKey', 'showLog'],
      };
    case 'CONFIG_ERROR': {
      const setting = settingForField(e.field);
      if (setting === 'dictee.proofreading.threshold') {
        // A service older than `details`: it does not know the field at all.
        return {
          severity: 'error',
          text: l10n.t(
            'Dictée: the service does not give the confidence of the words it hears (an older version). Set {0} to 0 to dictate without marking doubtful words.',
            setting,
          ),
          actions: ['openSettings', 'showLog'],
          setting,
        };
      }
      return {
        severity: 'error',
        text: setting
          ? l10n.t('Dictée: the service does not accept the value of the setting {0}. Correct it or reset it to its default.', setting)
          : l10n.t('Dictée: the service does not accept one of the dictation settings. Check them, or reset them to their defaults.'),
        actions: ['openSettings', 'showLog'],
        setting: setting ?? ALL_SETTINGS,
      };
    }
    case 'INIT_ERROR': {
      if (recogniserUnavailable(e)) return recogniserStayedUnavailable(l10n);
      // The service's message names the cause (the language, the sample rate or the encoding): the user is told that one.
      const cause = initErrorCause(e.message);
      const language = languageName(l10n, ctx.language);
      if (cause?.kind === 'language') {
        const served = (cause.served ?? [])
          .filter((l) => l !== cause.language && l !== 'any')
          .map((l) => ((LANGUAGES as readonly string[]).includes(l) ? languageName(l10n, l as Language) : l));
        return {
          severity: 'error',
          text: served.length
            ? l10n.t(
                'Dictée: the service does not take dictation in {0}; it serves {1}. Choose one of those, or install a speech model for {0} on the service (npm run models -- list).',
                language,
                served.join(', '),
              )
            : l10n.t(
                'Dictée: the service does not take dictation in {0}. Choose another language, or install a speech model for {0} on the service (npm run models -- list).',
                language,
              ),
          actions: ['openSettings', 'showLog'],
          setting: 'dictee.language',
        };
      }
      if (cause?.kind === 'sample_rate' || cause?.kind === 'encoding') {
        return {
          severity: 'error',
          text: l10n.t(
            'Dictée: the service does not take audio at {0} Hz. Reset the sample rate to {1} Hz.',
            ctx.sampleRate,
            DEFAULT_SAMPLE_RATE,
          ),
          actions: ['openSettings', 'showLog'],
          setting: ALL_SETTINGS,
        };
      }
      if (ctx.sampleRate === DEFAULT_SAMPLE_RATE) {
        return {
          severity: 'error',
          text: l10n.t('Dictée: the service cannot take dictation in {0} at {1} Hz. Choose another language.', language, ctx.sampleRate),
          actions: ['openSettings', 'showLog'],
          setting: 'dictee.language',
        };
      }
      return {
        severity: 'error',
        text: l10n.t(
          'Dictée: the service cannot take dictation in {0} at {1} Hz. Choose another language, or reset the sample rate to {2} Hz.',
          language,
          ctx.sampleRate,
          DEFAULT_SAMPLE_RATE,
        ),
        actions: ['openSettings', 'showLog'],
        setting: ALL_SETTINGS,
      };
    }
    case 'CONCURRENCY_LIMIT_EXCEEDED':
      if (recogniserUnavailable(e)) return recogniserStayedUnavailable(l10n);
      return {
        severity: 'error',
        text: l10n.t(
          'Dictée: too many dictations are open for your organisation. Stop dictating in another window or on another device, then retry.',
        ),
        actions: ['retry', 'showLog'],
      };
    case 'RATE_LIMITED':
      return {
        severity: 'warning',
        text: l10n.t('Dictée: the service received too many requests with this key and dictation stopped. Wait a minute, then retry.'),
        actions: ['retry', 'showLog'],
      };
    case 'SESSION_IDLE':
      return {
        severity: 'warning',
        text: l10n.t('Dictée: the service ended the dictation after a long time without audio. What was dictated is in the document.'),
        actions: ['retry', 'showLog'],
      };
    case 'PROTOCOL_ERROR':
    case 'INTERNAL_ERROR':
      return {
        severity: 'error',
        text: l10n.t('Dictée: the service failed and dictation stopped. What was written stays in the document.'),
        actions: ['retry', 'showLog'],
      };
    case 'NETWORK_ERROR':
    case 'TIMEOUT':
      if (ctx.wasConnected) {
        return {
          severity: 'error',
          text: l10n.t(
            'Dictée: the network connection to the service was lost and could not be restored, so dictation stopped. What was dictated until then is in the document.',
          ),
          actions: ['retry', 'showLog'],
        };
      }
      return {
        severity: 'error',
        text: l10n.t(
          'Dictée: the service at {0} cannot be reached. Check that it is running and that the server address is right.',
          ctx.serverUrl,
        ),
        actions: ['retry', 'openSettings', 'showLog'],
        setting: 'dictee.serverUrl',
      };
  }
}

/**
 * A warning of the client library (the run goes on) as a plain sentence: the library's own words carry
 * byte counts and go to the log only.
 */
/** Retried with the service's wait until the run's attempts were spent: nothing the user can set. */
function recogniserStayedUnavailable(l10n: L10n): ErrorPresentation {
  return {
    severity: 'error',
    text: l10n.t(
      "Dictée: the service's speech recogniser stayed unavailable, so dictation stopped. What was dictated is in the document. Retry in a few minutes.",
    ),
    actions: ['retry', 'showLog'],
  };
}

export function warningSentence(l10n: L10n, text: string): string {
  if (/oldest buffered audio is being dropped/.test(text)) {
    return l10n.t(
      'Dictée: the connection has been lost for more than a minute; the oldest of what you say now is being lost. Dictation goes on.',
    );
  }
  if (/cannot be re-sent/.test(text)) {
    return l10n.t(
      'Dictée: after the connection came back, a few seconds of audio could not be sent again: some words may be missing just before the break.',
    );
  }
  if (/does not support resume/.test(text)) {
    return l10n.t('Dictée: the service could not continue the session; dictation goes on in a new one.');
  }
  return l10n.t('Dictée: something went wrong with the connection to the service, but dictation goes on (details in the log).');
}

/** What the status bar and the log call a source that gave no audio at all. */
type SilentSource = { page: true } | { page: false; recorder: string };

/**
 * The browser gave the capture page no microphone: the notification (why, in a person's words, and what
 * to do) and the cause the status bar shows until the next run.
 */
export function pageMicrophoneText(l10n: L10n, e: PageMicrophoneError): ErrorPresentation & { cause: string } {
  const site = e.origin ?? l10n.t('this code-server address');
  const recorder = l10n.t('Where VS Code runs on a desktop with a microphone, you can set "Audio: Source" to "recorder" instead.');
  const base = { severity: 'error' as const, actions: ['openSettings', 'showLog'] as ErrorAction[], setting: 'dictee.audio.source' };
  switch (e.problem) {
    case 'notFound':
      return {
        ...base,
        text: `${l10n.t(
          'Dictée: the browser found no microphone, so dictation stopped: nothing could be recorded. Plug in a microphone or choose one in the browser, then click Start on the capture page.',
        )} ${recorder}`,
        cause: l10n.t('the browser found no microphone.'),
      };
    case 'denied':
      return {
        ...base,
        text: `${l10n.t(
          "Dictée: the browser denied the microphone to the capture page, so dictation stopped. Allow the microphone for {0} in the browser's site permissions, then click Start on the capture page.",
          site,
        )} ${recorder}`,
        cause: l10n.t('the browser denied the microphone (site permission for {0}).', site),
      };
    case 'busy':
      return {
        ...base,
        text: l10n.t(
          'Dictée: the browser could not open the microphone, so dictation stopped: another application may be using it. Close that application or choose another microphone in the browser, then click Start on the capture page.',
        ),
        cause: l10n.t('the microphone is in use by another application, or could not be opened.'),
      };
    case 'insecure':
      return {
        ...base,
        text: `${l10n.t(
          'Dictée: the browser gives the microphone only to pages opened over https or on localhost, and {0} is neither, so dictation stopped. Open code-server over https.',
          site,
        )} ${recorder}`,
        cause: l10n.t('the browser gives the microphone only to https or localhost pages.'),
      };
    default:
      return {
        ...base,
        text: `${l10n.t(
          "Dictée: the browser did not give the microphone to the capture page ({0}), so dictation stopped. Check the microphone and the browser's site permissions for {1}, then click Start on the capture page.",
          e.domName,
          site,
        )} ${recorder}`,
        cause: l10n.t('the browser did not give the microphone ({0}).', e.domName),
      };
  }
}

/** The cause a run's failed source leaves in the status bar (the notification said it at length). */
export function sourceFailedCause(l10n: L10n, e: Error): string {
  return e instanceof PageMicrophoneError ? pageMicrophoneText(l10n, e).cause : l10n.t('the recorder failed.');
}

/** Nothing at all has arrived from the run's source for `seconds` (told once a run). */
export function noAudioText(l10n: L10n, source: SilentSource, seconds: number): ErrorPresentation {
  return source.page
    ? {
        severity: 'warning',
        text: l10n.t(
          'Dictée: no audio has reached VS Code from the capture page for {0} s, so nothing you say is recorded. Check that the capture page is open, that it shows "Recording", and that the browser gives it a microphone.',
          seconds,
        ),
        actions: ['showLog'],
      }
    : {
        severity: 'warning',
        text: l10n.t(
          'Dictée: the recorder "{0}" has delivered no audio for {1} s, so nothing you say is recorded. Choose another microphone, or check that no other program holds it.',
          source.recorder,
          seconds,
        ),
        actions: ['selectMicrophone', 'showLog'],
      };
}
