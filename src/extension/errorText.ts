/**
 * What the user is told for each error of a run, and which button goes with it. Pure (no `vscode`),
 * tested in plain Node. Messages never contain the API key (the client library redacts it; the
 * controller scrubs again).
 */
import type { DictationErrorCode } from '../client/errors';
import { settingForField } from './settingsMap';

export type ErrorAction = 'Set API Key' | 'Open Settings' | 'Show Log';

export interface ErrorLike {
  code: DictationErrorCode;
  message: string;
  field?: string;
  retryAfterMs?: number;
  sessionId?: string;
}

export interface ErrorPresentation {
  severity: 'error' | 'warning';
  text: string;
  actions: ErrorAction[];
  /** For "Open Settings": the setting (or settings query) to open. */
  setting?: string;
}

function strip(message: string): string {
  const m = message.trim().replace(/\.$/, '');
  return m.length > 300 ? `${m.slice(0, 297)}…` : m;
}

export function presentError(e: ErrorLike, serverUrl: string): ErrorPresentation {
  const msg = strip(e.message);
  switch (e.code) {
    case 'AUTH_ERROR':
      return {
        severity: 'error',
        text: `Dictée: authentication failed — ${msg}. Set a valid key with write permission.`,
        actions: ['Set API Key', 'Show Log'],
      };
    case 'CONFIG_ERROR': {
      const setting = settingForField(e.field);
      return {
        severity: 'error',
        text: setting
          ? `Dictée: the setting ${setting} is not accepted by the service: ${msg}. Correct it or reset it to its default.`
          : `Dictée: the service refused the dictation settings: ${msg}. Check the Dictée settings or reset them to their defaults.`,
        actions: ['Open Settings', 'Show Log'],
        setting: setting ?? '@ext:dictee.dictee',
      };
    }
    case 'INIT_ERROR':
      return {
        severity: 'error',
        text: `Dictée: the service cannot serve this audio format or language (${msg}). Use dictee.sampleRate 16000 and a language the service supports (dictee.language).`,
        actions: ['Open Settings', 'Show Log'],
        setting: '@ext:dictee.dictee',
      };
    case 'CONCURRENCY_LIMIT_EXCEEDED':
      return {
        severity: 'error',
        text: `Dictée: too many dictation sessions are open for your organisation (${msg}). Stop dictation in another window or on another device, then start again.`,
        actions: ['Show Log'],
      };
    case 'RATE_LIMITED':
      return {
        severity: 'warning',
        text: `Dictée: the service is rate-limiting this key (${msg}). Dictation gave up retrying; wait a minute and start again.`,
        actions: ['Show Log'],
      };
    case 'PROTOCOL_ERROR':
    case 'INTERNAL_ERROR':
      return {
        severity: 'error',
        text: `Dictée: the service kept failing (${e.code}: ${msg}) and dictation stopped. What was written stays in the document; see the log${e.sessionId ? ` (session ${e.sessionId})` : ''}.`,
        actions: ['Show Log'],
      };
    case 'NETWORK_ERROR':
    case 'TIMEOUT':
      return {
        severity: 'error',
        text: `Dictée: cannot reach the service at ${serverUrl} (${msg}). Check dictee.serverUrl and that the service is running.`,
        actions: ['Open Settings', 'Show Log'],
        setting: 'dictee.serverUrl',
      };
  }
}
