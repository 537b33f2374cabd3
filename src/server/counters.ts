/**
 * What the service counts for its metrics: plain numbers added to where things happen (a session, a
 * connection, the HTTP API), read by http/metrics.ts when Prometheus scrapes. Every layer may use it
 * (as log.ts and clock.ts), so live/ counts without knowing of http/ or of prom-client.
 *
 * Counting costs an addition: no allocation, no label built on the audio path. Every label is one of a
 * closed set fixed here (an end reason, an error code, an event type): never a key, a session id or text.
 */
import { ERROR_CODES, type HttpErrorBody } from '../protocol';

/** Why a session ended, as its record says (`end_reason`). */
export const END_REASONS = [
  'client stop',
  'service shutdown',
  'decoder failure',
  'key revoked',
  'key expired',
  'ended by an administrator',
  'dropped and not resumed',
] as const;
export type EndReason = (typeof END_REASONS)[number];

/** The transcript events a session sends: `transcript` by its status, and `batch.replace`. */
export const TRANSCRIPT_EVENTS = ['streaming', 'interim', 'final', 'batch.replace'] as const;
export type TranscriptEventType = (typeof TRANSCRIPT_EVENTS)[number];

/** The code of an error sent to a client: over HTTP (with the HTTP-only codes) or over the WebSocket. */
export type CountedErrorCode = HttpErrorBody['error']['code'];
export const COUNTED_ERROR_CODES: readonly CountedErrorCode[] = [...ERROR_CODES, 'NOT_FOUND', 'PAYLOAD_TOO_LARGE', 'METHOD_NOT_ALLOWED'];

export interface ServiceCounters {
  /** A new session was created (not a resume). */
  sessionStarted(): void;
  /** A session was resumed (from memory or from storage). */
  sessionResumed(): void;
  /** A session ended (its record's end). */
  sessionEnded(reason: EndReason): void;
  /** Audio a session took: `bytes` of 16-bit samples at `sampleRate`. */
  audio(bytes: number, sampleRate: number): void;
  /** One transcript event sent (or queued to be sent). */
  transcriptEvent(type: TranscriptEventType): void;
  /** One error sent to a client (an HTTP error answer, an upgrade refused, or an `error` message). */
  error(code: CountedErrorCode): void;
  /** A decoder in this process decoded `audioSeconds` of audio in `decodeSeconds` (its real-time factor). */
  decoded(audioSeconds: number, decodeSeconds: number): void;
}

/** The counts as numbers: what {@link ServiceCounters} adds to. */
export class Tallies implements ServiceCounters {
  sessionsStarted = 0;
  sessionsResumed = 0;
  audioSeconds = 0;
  decodedAudioSeconds = 0;
  decodeSeconds = 0;
  readonly sessionsEnded = zeroes(END_REASONS);
  readonly transcriptEvents = zeroes(TRANSCRIPT_EVENTS);
  readonly errors = zeroes(COUNTED_ERROR_CODES);

  sessionStarted(): void {
    this.sessionsStarted++;
  }

  sessionResumed(): void {
    this.sessionsResumed++;
  }

  sessionEnded(reason: EndReason): void {
    this.sessionsEnded[reason]++;
  }

  audio(bytes: number, sampleRate: number): void {
    this.audioSeconds += bytes / 2 / sampleRate;
  }

  transcriptEvent(type: TranscriptEventType): void {
    this.transcriptEvents[type]++;
  }

  error(code: CountedErrorCode): void {
    this.errors[code]++;
  }

  decoded(audioSeconds: number, decodeSeconds: number): void {
    this.decodedAudioSeconds += audioSeconds;
    this.decodeSeconds += decodeSeconds;
  }
}

/** A counter per name, each at 0. */
function zeroes<K extends string>(names: readonly K[]): Record<K, number> {
  return Object.fromEntries(names.map((n) => [n, 0])) as Record<K, number>;
}
