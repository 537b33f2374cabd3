/**
 * The errors of a dictation run: one shape (`DictationError`), the pure functions that map every failure
 * the client meets to it (an HTTP answer, a failed request, a refused upgrade, a service `error` message,
 * a close code), and the advice a person is given for each code. The key never reaches a message: every
 * text that could hold it is scrubbed here.
 */
import { DEFAULT_RATE_LIMIT_RETRY_MS, ERROR_CODES, errorCodeForClose, isRetried, type ErrorCode } from '../protocol/errors';
import { redactKey } from '../protocol/http';
import { errorMessage } from '../shared/errors';
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

  /** The same error, fatal or not. */
  withFatal(fatal: boolean): DictationError {
    const { code, message, field, retryAfterMs, sessionId, status } = this;
    return new DictationError({ code, message, field, retryAfterMs, sessionId, status, fatal });
  }
}

/**
 * Whether `code` ends a run (not retried on a connection, in the one retry table `RETRY`): the user must
 * change something first. An INIT_ERROR with a wait (`retryAfterMs > 0`: the recogniser is not available
 * now) does not.
 */
export function isFatal(code: DictationErrorCode, retryAfterMs = 0): boolean {
  return !isRetried(code, 'connection', retryAfterMs);
}

interface ErrorAdvice {
  /** What went wrong, as a person would say it (lower case, no final period). */
  summary: string;
  /** What to do about it (a sentence). */
  advice: string;
}

/**
 * The one advice table: what a person is told for each code, by the example client and by the
 * extension (which adds the setting or the address concerned). docs/client.md, "Errors → action".
 */
export const ERROR_ADVICE: Record<DictationErrorCode, ErrorAdvice> = {
  AUTH_ERROR: {
    summary: 'authentication failed',
    advice: 'Set a valid API key with the write permission (the one used is missing, unknown, revoked, or lacks it).',
  },
  CONFIG_ERROR: {
    summary: 'the service refused a dictation setting',
    advice: 'Correct the setting named in the message, or reset it to its default.',
  },
  INIT_ERROR: {
    summary: 'the service cannot serve this audio format or language',
    advice: 'Change what the message says the service refused: the language, the sample rate or the encoding.',
  },
  RATE_LIMITED: {
    summary: 'the service is rate-limiting this key',
    advice: 'Dictée waits and retries by itself; if it gave up, wait a minute and start again.',
  },
  CONCURRENCY_LIMIT_EXCEEDED: {
    summary: 'too many dictation sessions are open for this organisation',
    advice: 'Stop dictation in another window or on another device, then start again.',
  },
  PROTOCOL_ERROR: {
    summary: 'the service reported a protocol error',
    advice: 'Dictée reconnects and resumes by itself; if it keeps happening and dictation stops, report it with the log.',
  },
  SESSION_IDLE: {
    summary: 'the service closed a session that had received no audio for a long time',
    advice: 'Dictée reconnects by itself when you resume; nothing written is lost.',
  },
  INTERNAL_ERROR: {
    summary: 'the service had an internal error',
    advice: 'Dictée reconnects and resumes by itself; if it keeps happening and dictation stops, report it with the log.',
  },
  NETWORK_ERROR: {
    summary: 'the service cannot be reached',
    advice: 'Check the server URL and that the service is running.',
  },
  TIMEOUT: {
    summary: 'the service did not answer in time',
    advice: 'Check the server URL and the network.',
  },
};

/**
 * An INIT_ERROR or CONCURRENCY_LIMIT_EXCEEDED that names a wait (`retry_after_ms > 0`): the service's speech
 * recogniser is not available right now (a remote engine that is down, or decoders behind real time). The
 * run waits and tries again (the one retry table); not a setting to change.
 */
export function recogniserUnavailable(e: Pick<DictationError, 'code' | 'retryAfterMs'>): boolean {
  return (e.code === 'INIT_ERROR' || e.code === 'CONCURRENCY_LIMIT_EXCEEDED') && e.retryAfterMs > 0;
}

const RECOGNISER_UNAVAILABLE_ADVICE =
  "The service's speech recogniser (another server) is not available now; Dictée waited and tried again. Start again in a few minutes, or tell the service's administrator.";

/** What an INIT_ERROR refused, read from the service's message (`language de is not available…; it serves: en`). */
type InitErrorCause =
  | { kind: 'language'; language: string; served?: string[] }
  | { kind: 'sample_rate'; sampleRate: number }
  | { kind: 'encoding'; encoding: string };

export function initErrorCause(message: string): InitErrorCause | undefined {
  const language = /language (\S+) is not available(?:[^;]*; it serves: ([^.\n]+))?/.exec(message);
  if (language) {
    const served = language[2]
      ?.split(',')
      .map((l) => l.trim())
      .filter(Boolean);
    return { kind: 'language', language: language[1]!, ...(served?.length ? { served } : {}) };
  }
  const rate = /sample_rate (\d+) Hz is not supported/.exec(message);
  if (rate) return { kind: 'sample_rate', sampleRate: Number(rate[1]) };
  const encoding = /encoding "([^"]*)" is not supported/.exec(message);
  if (encoding) return { kind: 'encoding', encoding: encoding[1]! };
  return undefined;
}

interface AdviceContext {
  /** The languages the service serves (`GET /healthz`), when known. */
  served?: readonly string[];
  /** How the user chooses the language (`--language` for the example client), named in the advice. */
  languageOption?: string;
}

/**
 * The advice for this error: the table's, made precise by the actual cause where the message tells it
 * (an INIT_ERROR about the language names the language refused and those the service serves).
 */
export function adviceFor(e: DictationError, ctx: AdviceContext = {}): string {
  if (recogniserUnavailable(e)) return RECOGNISER_UNAVAILABLE_ADVICE;
  if (e.code !== 'INIT_ERROR') return ERROR_ADVICE[e.code].advice;
  const cause = initErrorCause(e.message);
  switch (cause?.kind) {
    case 'language': {
      const served = (cause.served ?? ctx.served)?.filter((l) => l !== cause.language && l !== 'any');
      if (!served?.length)
        return `The service does not serve the language ${cause.language}: choose a language it serves (GET /healthz lists them).`;
      const how = ctx.languageOption ? `: run again with ${ctx.languageOption} ${served[0]}` : '';
      return `The service does not serve the language ${cause.language}; it serves ${served.join(', ')}${how}.`;
    }
    case 'sample_rate':
      return `The service does not take audio at ${cause.sampleRate} Hz: send audio at the rate the message names.`;
    case 'encoding':
      return `The service does not take ${JSON.stringify(cause.encoding)} audio: send 16-bit little-endian PCM (pcm_s16le).`;
    default:
      return ERROR_ADVICE.INIT_ERROR.advice;
  }
}

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

/** Replaces every occurrence of the key in a text with its redacted form (defence in depth). */
export function scrubKey(text: string, key: string, redacted = redactKey(key)): string {
  if (!key) return text;
  return text.split(key).join(redacted);
}

function isErrorCode(v: unknown): v is ErrorCode {
  return typeof v === 'string' && (ERROR_CODES as readonly string[]).includes(v);
}

/** Anything thrown, as a DictationError: a DictationError as it is, anything else a non-fatal INTERNAL_ERROR. */
export function toDictationError(e: unknown): DictationError {
  if (e instanceof DictationError) return e;
  return new DictationError({ code: 'INTERNAL_ERROR', message: errorMessage(e), fatal: false });
}

/** `Retry-After` (seconds) in milliseconds; 0 when absent or not a positive number. */
export function retryAfterHeaderMs(value: string | null | undefined): number {
  const s = Number(value);
  return value && Number.isFinite(s) && s > 0 ? s * 1000 : 0;
}

/** A non-2xx answer to an HTTP call of the service. */
interface HttpRefusal {
  status: number;
  /** The parsed JSON body, if any. */
  body: unknown;
  retryAfterHeader: string | null;
  url: string;
}

/**
 * Maps a non-2xx answer to a DictationError (401/403 AUTH_ERROR, 429, 5xx, anything else PROTOCOL_ERROR);
 * fatal unless the session init retries it (`RETRY`).
 */
export function errorFromHttpRefusal(r: HttpRefusal, key: string): DictationError {
  const error =
    typeof r.body === 'object' && r.body !== null
      ? (r.body as { error?: { code?: unknown; message?: unknown; retry_after_ms?: unknown } }).error
      : undefined;
  const serverMessage = typeof error?.message === 'string' ? scrubKey(error.message, key) : '';
  let retryAfterMs = typeof error?.retry_after_ms === 'number' ? error.retry_after_ms : 0;
  if (!retryAfterMs) retryAfterMs = retryAfterHeaderMs(r.retryAfterHeader);
  const code = isErrorCode(error?.code) ? error.code : undefined;
  const detail = serverMessage ? `: ${serverMessage}` : '';
  const status = r.status;
  if (status === 401) {
    return new DictationError({
      code: 'AUTH_ERROR',
      status,
      fatal: true,
      message: `the service refused the API key ${redactKey(key)} (missing, unknown or revoked)${detail}`,
    });
  }
  if (status === 403) {
    return new DictationError({
      code: 'AUTH_ERROR',
      status,
      fatal: true,
      message: `the API key ${redactKey(key)} lacks the permission to open live sessions${detail}`,
    });
  }
  if (status === 429) {
    if (code === 'CONCURRENCY_LIMIT_EXCEEDED') {
      return new DictationError({
        code,
        status,
        fatal: !isRetried(code, 'init', retryAfterMs),
        retryAfterMs,
        message: `concurrency limit reached${detail}`,
      });
    }
    const wait = retryAfterMs || DEFAULT_RATE_LIMIT_RETRY_MS;
    return new DictationError({
      code: 'RATE_LIMITED',
      status,
      fatal: !isRetried('RATE_LIMITED', 'init'),
      retryAfterMs: wait,
      message: `rate limited by the service; retry in ${Math.ceil(wait / 1000)} s${detail}`,
    });
  }
  if (status >= 500) {
    return new DictationError({
      code: 'INTERNAL_ERROR',
      status,
      fatal: !isRetried('INTERNAL_ERROR', 'init'),
      retryAfterMs,
      message: `the service failed (HTTP ${status}) at ${r.url}${detail}`,
    });
  }
  const other = code ?? 'PROTOCOL_ERROR';
  return new DictationError({
    code: other,
    status,
    fatal: !isRetried(other, 'init', retryAfterMs),
    retryAfterMs,
    message: `unexpected answer HTTP ${status} from ${r.url}${detail}`,
  });
}

/** A request that got no answer: TIMEOUT when it was aborted by its timeout, NETWORK_ERROR otherwise. */
export function errorFromRequestFailure(e: unknown, url: string, key: string, timeoutMs: number): DictationError {
  const name = e instanceof Error ? e.name : '';
  if (name === 'TimeoutError' || name === 'AbortError') {
    return new DictationError({ code: 'TIMEOUT', fatal: false, message: `no answer from ${url} within ${timeoutMs} ms` });
  }
  // fetch reports the system error (ECONNREFUSED, ENOTFOUND…) as the `cause` of a generic TypeError.
  const cause: unknown = e instanceof Error ? e.cause : undefined;
  const why =
    typeof cause === 'object' && cause !== null
      ? String((cause as { code?: unknown }).code ?? (cause as { message?: unknown }).message ?? errorMessage(e))
      : errorMessage(e);
  return new DictationError({ code: 'NETWORK_ERROR', fatal: false, message: scrubKey(`cannot reach the service at ${url} (${why})`, key) });
}

/** The service answered the WebSocket upgrade with an HTTP status instead of switching protocols. */
export function errorFromUpgradeRefusal(status: number, retryAfterHeader: string | null | undefined, key: string): DictationError {
  const code: DictationErrorCode =
    status === 401 || status === 403 ? 'AUTH_ERROR' : status === 429 ? 'RATE_LIMITED' : status >= 500 ? 'INTERNAL_ERROR' : 'NETWORK_ERROR';
  return new DictationError({
    code,
    status,
    fatal: isFatal(code),
    retryAfterMs: retryAfterHeaderMs(retryAfterHeader),
    message: `the service refused the WebSocket upgrade with HTTP ${status}${code === 'AUTH_ERROR' ? ` (API key ${redactKey(key)})` : ''}`,
  });
}

/** An `error` message of the service (already validated as one: `code` and `message` are strings). */
interface ServiceErrorMessage {
  code: string;
  message: string;
  retry_after_ms?: number;
  session_id?: string;
  field?: unknown;
}

/** Maps a service `error` message; an unknown code is an INTERNAL_ERROR that keeps the code in its message. */
export function errorFromServiceMessage(m: ServiceErrorMessage, key: string, sessionId: string | undefined): DictationError {
  const known = isErrorCode(m.code);
  const code: ErrorCode = known ? (m.code as ErrorCode) : 'INTERNAL_ERROR';
  const message = scrubKey(m.message, key);
  const retryAfterMs = code === 'RATE_LIMITED' ? m.retry_after_ms || DEFAULT_RATE_LIMIT_RETRY_MS : (m.retry_after_ms ?? 0);
  return new DictationError({
    code,
    message: known ? message : `${m.code}: ${message}`,
    field: code === 'CONFIG_ERROR' ? (typeof m.field === 'string' ? m.field : fieldFromMessage(message)) : undefined,
    retryAfterMs,
    sessionId: m.session_id ?? sessionId,
    fatal: isFatal(code, retryAfterMs),
  });
}

/**
 * A close that came without an `error` message before it: fatal when its close code stands for a fatal
 * error code (should not happen, but be sure), else a non-fatal loss of the connection.
 */
export function errorFromClose(closeCode: number, reason: string, sessionId: string | undefined): DictationError {
  const code = errorCodeForClose(closeCode);
  const why = reason ? ` (${reason})` : '';
  if (code && isFatal(code)) {
    return new DictationError({ code, message: `the service closed the connection with code ${closeCode}${why}`, fatal: true, sessionId });
  }
  return new DictationError({
    code: code ?? 'NETWORK_ERROR',
    message: `connection lost (close code ${closeCode}${reason ? `, ${reason}` : ''})`,
    fatal: false,
    sessionId,
  });
}
