/**
 * The capture page's report that the browser gave no microphone (`getUserMedia` refused): the page sends
 * `{"t":"microphone","error":NAME,"message":TEXT}` with the DOMException's name and message; the server
 * checks it and, while a run records, hands the run a `PageMicrophoneError` as its source's `error`.
 * Pure (no I/O): what kind of problem a name is, for the words the user is told.
 */

/**
 * `notFound`: no microphone (or none that fits); `denied`: the user or the browser's site permission
 * refused it; `busy`: the device could not be opened (another application holds it, or the system
 * refused); `insecure`: the page is not a secure context (plain http on another host than localhost), so
 * the browser offers no microphone at all; `other`: any other name.
 */
type MicrophoneProblem = 'notFound' | 'denied' | 'busy' | 'insecure' | 'other';

/** The name the page sends when `navigator.mediaDevices` does not exist (not a secure context). */
export const INSECURE_CONTEXT = 'InsecureContextError';

const KINDS: Record<string, MicrophoneProblem> = {
  NotFoundError: 'notFound',
  // Chrome's names before the standard ones, and a constraint no device meets.
  DevicesNotFoundError: 'notFound',
  OverconstrainedError: 'notFound',
  ConstraintNotSatisfiedError: 'notFound',
  NotAllowedError: 'denied',
  PermissionDeniedError: 'denied',
  SecurityError: 'denied',
  NotReadableError: 'busy',
  TrackStartError: 'busy',
  AbortError: 'busy',
  [INSECURE_CONTEXT]: 'insecure',
};

export function microphoneProblem(name: string): MicrophoneProblem {
  return Object.prototype.hasOwnProperty.call(KINDS, name) ? KINDS[name]! : 'other';
}

/** The browser gave the capture page no microphone: the run's source failed. */
export class PageMicrophoneError extends Error {
  override readonly name = 'PageMicrophoneError';
  readonly problem: MicrophoneProblem;
  constructor(
    /** The DOMException's name as the page sent it (`NotFoundError`…). */
    readonly domName: string,
    /** The browser's own words (English, for the log). */
    readonly detail: string,
    /** The origin the page was opened at (whose site permission applies), when known. */
    readonly origin?: string,
  ) {
    super(`the browser gave the capture page no microphone: ${domName}${detail ? `: ${detail}` : ''}`);
    this.problem = microphoneProblem(domName);
  }
}

/** At most this many characters of the browser's message are kept. */
const MAX_DETAIL = 200;

/**
 * The page's `microphone` message, checked: a name of letters, digits and `_` (at most 64, starting with
 * a letter) and a message (a string, cut to {@link MAX_DETAIL}, control characters replaced); undefined
 * when it is not one (the server closes such a socket).
 */
export function parseMicrophoneReport(m: unknown): { name: string; message: string } | undefined {
  if (typeof m !== 'object' || m === null) return undefined;
  const { error, message } = m as { error?: unknown; message?: unknown };
  if (typeof error !== 'string' || !/^[A-Za-z][A-Za-z0-9_]{0,63}$/.test(error)) return undefined;
  if (message !== undefined && typeof message !== 'string') return undefined;
  const text = (message ?? '').replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, ' ').slice(0, MAX_DETAIL);
  return { name: error, message: text };
}
