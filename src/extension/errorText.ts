/**
 * What the user is told when a run ends with an error, and which buttons go with it. Pure (no `vscode`),
 * tested in plain Node. The words come from the one advice table (`ERROR_ADVICE`, src/client/errors.ts);
 * this adds what only the extension knows: the setting concerned, the service's address, the buttons.
 * Messages never contain the API key (the client library scrubs it; the controller scrubs again).
 */
import { ERROR_ADVICE, type DictationError } from '../client/errors';
import { settingForField } from './settingsMap';

export type ErrorAction = 'Set API Key' | 'Open Settings' | 'Show Log';

export interface ErrorPresentation {
  severity: 'error' | 'warning';
  text: string;
  actions: ErrorAction[];
  /** For "Open Settings": the setting (or settings query) to open. */
  setting?: string;
}

/** The settings query that lists every Dictée setting. */
const ALL_SETTINGS = '@ext:dictee.dictee';

function strip(message: string): string {
  const m = message.trim().replace(/\.$/, '');
  return m.length > 300 ? `${m.slice(0, 297)}…` : m;
}

export function presentError(e: DictationError, serverUrl: string): ErrorPresentation {
  const { summary, advice } = ERROR_ADVICE[e.code];
  /** `Dictée: <summary><where> (<message>). <advice><more>` */
  const text = (where = '', more = ''): string => `Dictée: ${summary}${where} (${strip(e.message)}). ${advice}${more}`;
  switch (e.code) {
    case 'AUTH_ERROR':
      return { severity: 'error', text: text(), actions: ['Set API Key', 'Show Log'] };
    case 'CONFIG_ERROR': {
      const setting = settingForField(e.field);
      return { severity: 'error', text: text(setting ? `: ${setting}` : ''), actions: ['Open Settings', 'Show Log'], setting: setting ?? ALL_SETTINGS };
    }
    case 'INIT_ERROR':
      return { severity: 'error', text: text('', ' (dictee.sampleRate, dictee.language)'), actions: ['Open Settings', 'Show Log'], setting: ALL_SETTINGS };
    case 'CONCURRENCY_LIMIT_EXCEEDED':
      return { severity: 'error', text: text(), actions: ['Show Log'] };
    case 'RATE_LIMITED':
      return { severity: 'warning', text: text(), actions: ['Show Log'] };
    case 'SESSION_IDLE':
      return { severity: 'warning', text: text(), actions: ['Show Log'] };
    case 'PROTOCOL_ERROR':
    case 'INTERNAL_ERROR':
      return {
        severity: 'error',
        text: text('', ` Dictation stopped; what was written stays in the document${e.sessionId ? ` (session ${e.sessionId})` : ''}.`),
        actions: ['Show Log'],
      };
    case 'NETWORK_ERROR':
    case 'TIMEOUT':
      return { severity: 'error', text: text(` at ${serverUrl}`, ' (dictee.serverUrl)'), actions: ['Open Settings', 'Show Log'], setting: 'dictee.serverUrl' };
  }
}
