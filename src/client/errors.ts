/**
 * The errors a dictation run reports, and what a client does about each.
 */
import type { ErrorCode } from '../protocol/errors';
import { CONFIG_FIELD_NAMES } from './configFields';

/** The service's codes, plus the client-side ones: the service cannot be reached, or did not answer in time. */
export type DictationErrorCode = ErrorCode | 'NETWORK_ERROR' | 'TIMEOUT';

export interface DictationErrorInit {
  code: DictationErrorCode;
  message: string;
  /** For CONFIG_ERROR: the configuration field at fault (e.g. `silence_threshold`). */
  field?: string;
  retryAfterMs?: number;
  sessionId?: string;
  fatal: boolean;
  /** HTTP status, when the error came from an HTTP call. */
  status?: number;
}

export class DictationError extends Error {
  override readonly name = 'DictationError';
  readonly code: DictationErrorCode;
  readonly field?: string;
  readonly retryAfterMs: number;
  readonly sessionId?: string;
  readonly fatal: boolean;
  readonly status?: number;

  constructor(init: DictationErrorInit) {
    super(init.message);
    this.code = init.code;
    this.field = init.field;
    this.retryAfterMs = init.retryAfterMs ?? 0;
    this.sessionId = init.sessionId;
    this.fatal = init.fatal;
    this.status = init.status;
  }
}

/** What the session does with each service error code during a run. */
export const FATAL_CODES: ReadonlySet<DictationErrorCode> = new Set<DictationErrorCode>([
  'AUTH_ERROR',
  'CONFIG_ERROR',
  'INIT_ERROR',
  'CONCURRENCY_LIMIT_EXCEEDED',
]);

/** The advice shown to a user for each code (the action column of docs/client.md). */
export const ERROR_ADVICE: Record<DictationErrorCode, string> = {
  AUTH_ERROR: 'The API key was refused (missing, unknown, revoked, or without write permission). Set a valid API key.',
  CONFIG_ERROR: 'A dictation setting is invalid. Correct the setting named in the message, or reset it to its default.',
  INIT_ERROR: 'The service cannot serve this audio format or language. Use 16000 Hz pcm_s16le and a supported language.',
  RATE_LIMITED: 'Too many requests with this key. Dictée waits and retries by itself.',
  CONCURRENCY_LIMIT_EXCEEDED: 'Too many dictation sessions are open for this organisation. Stop another session, then start again.',
  PROTOCOL_ERROR: 'The service reported a protocol error. Dictée reconnects and resumes by itself; if it keeps happening, report it with the log.',
  INTERNAL_ERROR: 'The service had an internal error. Dictée reconnects and resumes by itself.',
  NETWORK_ERROR: 'The service cannot be reached. Check the server URL and that the service is running.',
  TIMEOUT: 'The service did not answer in time. Check the server URL and the network.',
};

/** The configuration field named in a CONFIG_ERROR message (`unknown field colour`, `silence_threshold must…`). */
export function fieldFromMessage(message: string): string | undefined {
  const unknown = /unknown field ([A-Za-z_.]+)/.exec(message);
  if (unknown) return unknown[1]!.replace(/^config\./, '');
  let best: { name: string; at: number } | undefined;
  for (const name of CONFIG_FIELD_NAMES) {
    const m = new RegExp(`(?:^|[^A-Za-z_])((?:config\\.)?${name.replace('.', '\\.')})(?![A-Za-z_])`).exec(message);
    if (m && (!best || m.index < best.at || (m.index === best.at && name.length > best.name.length))) best = { name, at: m.index };
  }
  return best?.name;
}

/** Replaces every occurrence of the key in a text with a redacted form (defence in depth). */
export function scrubKey(text: string, key: string, redacted: string): string {
  if (!key) return text;
  return text.split(key).join(redacted);
}
