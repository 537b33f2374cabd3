/**
 * Which service session a run is in, across its connections (pure): what the next `configure` asks to
 * resume, whether a `configured` continued the session or began a new one (a new *generation*: seq and
 * audio offsets start again), and when the run must stop asking to resume.
 */
import type { ResumeRequest } from '../protocol/config';
import type { ConfiguredMessage } from '../protocol/messages';
import type { DictationError } from './errors';

interface ConfiguredOutcome {
  /** The `configure` asked to resume a session. */
  requestedResume: boolean;
  /** The service continued that session. */
  resumed: boolean;
  /** The run goes on in a new service session (not the first one): a new generation began. */
  newGeneration: boolean;
  /** The session before this `configured`. */
  previousSessionId: string | undefined;
}

export class Resumption {
  private trackingId: string | undefined;
  private serviceSessionId: string | undefined;
  private lastSeqValue: number | undefined;
  private generationNo = 0;
  private hadSession = false;
  /** The service ended the current service session on its own: the next connection starts a new one. */
  private sessionOver = false;
  /** The service refused `resume` (a service written to the spec only): every reconnection is a new session. */
  private resumeUnsupported = false;
  /** The `configure` of the current connection carried `resume`. */
  private resumeSent = false;
  /** `stopped` messages the run did not ask for, in a row (a drained service, then a session really over). */
  private unsolicitedStops = 0;

  /** The service session id (from `configured`), or the tracking id from session init before that. */
  get sessionId(): string | undefined {
    return this.serviceSessionId ?? this.trackingId;
  }

  get generation(): number {
    return this.generationNo;
  }

  /** The highest `seq` received in the current service session. */
  get lastSeq(): number | undefined {
    return this.lastSeqValue;
  }

  /** The session init answered with this id (it becomes the service session's id if the service adopts it). */
  initialised(trackingId: string): void {
    this.trackingId = trackingId;
  }

  /** The `resume` of the next `configure`: the run has a service session to continue. */
  nextResume(): ResumeRequest | undefined {
    const resume =
      this.serviceSessionId !== undefined && !this.sessionOver && !this.resumeUnsupported
        ? { session_id: this.serviceSessionId, last_seq: this.lastSeqValue ?? 0 }
        : undefined;
    this.resumeSent = resume !== undefined;
    return resume;
  }

  /** A `transcript` or `batch.replace` with this `seq` arrived. */
  received(seq: number): void {
    if (this.lastSeqValue === undefined || seq > this.lastSeqValue) this.lastSeqValue = seq;
  }

  configured(msg: Pick<ConfiguredMessage, 'session_id' | 'resumed'>): ConfiguredOutcome {
    const requestedResume = this.serviceSessionId !== undefined && !this.sessionOver;
    if (this.sessionOver) this.unsolicitedStops = 0;
    this.sessionOver = false;
    const resumed = requestedResume && msg.resumed === true && msg.session_id === this.serviceSessionId;
    const previousSessionId = this.serviceSessionId;
    this.serviceSessionId = msg.session_id;
    const newGeneration = this.hadSession && !resumed;
    if (newGeneration) {
      this.generationNo += 1;
      this.lastSeqValue = undefined;
    }
    this.hadSession = true;
    return { requestedResume, resumed, newGeneration, previousSessionId };
  }

  /**
   * `status: stopped` without a stop of the run's: the service is shutting down. The first time it
   * probably keeps the session resumable and the run resumes it; if a resumption ends the same way, the
   * session is over and the run goes on in a new one. Returns whether it is over.
   */
  endedByService(): boolean {
    this.unsolicitedStops += 1;
    this.sessionOver = this.unsolicitedStops >= 2;
    return this.sessionOver;
  }

  /**
   * Whether an error before `configured` refuses the `resume` the run asked for (a CONFIG_ERROR about
   * it: a service without the resume extension). From then on the run asks for new sessions.
   */
  refusesResume(err: DictationError, configured: boolean): boolean {
    if (err.code !== 'CONFIG_ERROR' || !this.resumeSent || configured) return false;
    if (!(err.field?.startsWith('resume') || /\bresume\b/.test(err.message))) return false;
    this.resumeUnsupported = true;
    return true;
  }
}
