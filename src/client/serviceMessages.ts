/**
 * What the service's messages mean for a run's link (link.ts): text and its seq, the service's status, an
 * error (a refused resume, a fatal error, or one retried on the next connection), and what `configured`
 * says of the session: resumed, or a new generation, and the audio the ledger sends again. The link keeps
 * the connection and the run's controls, and is told through {@link MessageLink}.
 */
import type { ConfiguredMessage, Metrics } from '../protocol/messages';
import { parseServerMessage } from '../protocol/parse';
import type { Logger } from '../shared/logger';
import type { AudioLedger, RewindResult } from './audioLedger';
import { DictationError, errorFromServiceMessage } from './errors';
import type { Resumption } from './resumption';
import type { SessionEvents } from './sessionTypes';

/** What the messages need of the link. */
interface MessageLink {
  logger: Logger;
  apiKey: string;
  /** The link's, shared: which service session the run is in, and its audio. */
  resumption: Resumption;
  ledger: AudioLedger;
  emit<K extends keyof SessionEvents>(event: K, value: SessionEvents[K]): void;
  /** `configured` arrived on the current connection. */
  isReady(): boolean;
  /** The run's `control stop` went out on the current connection. */
  stopSent(): boolean;
  /** The session's part of `configured` is done: the link takes the connection up. */
  configured(msg: ConfiguredMessage, outcome: { requestedResume: boolean; resumed: boolean }): void;
  /** Text arrived: the service makes progress. */
  progress(): void;
  /** `status: stopped` answered the run's stop. */
  stopped(metrics: Metrics | undefined): void;
  /** The current connection ends with this cause (not fatal: retried). */
  endWith(cause: DictationError): void;
  /** The run cannot go on. */
  fail(error: DictationError): void;
  /** Something was lost or degraded but the run goes on: logged and emitted as a `warning`. */
  warn(text: string): void;
}

export class ServiceMessages {
  private readonly logger: Logger;

  constructor(private readonly link: MessageLink) {
    this.logger = link.logger;
  }

  /** A text message from the service. */
  onText(text: string): void {
    const parsed = parseServerMessage(text);
    if (!parsed.ok) {
      this.logger.warn(`ignored a message from the service: ${parsed.message}`);
      return;
    }
    const msg = parsed.value;
    switch (msg.type) {
      case 'configured':
        this.onConfigured(msg);
        return;
      case 'transcript':
      case 'batch.replace':
        this.link.resumption.received(msg.seq);
        if (msg.type === 'batch.replace' || msg.status === 'final') this.link.ledger.markFinal();
        this.link.progress();
        this.link.emit('message', msg);
        return;
      case 'status':
        if (msg.state !== 'stopped') {
          this.logger.info(`status ${msg.state}${msg.message ? `: ${msg.message}` : ''}`);
        } else if (this.link.stopSent()) {
          this.logger.info(`stopped; metrics ${JSON.stringify(msg.metrics ?? {})}`);
          this.link.stopped(msg.metrics);
        } else {
          // The service ended the session without our stop on this connection (it is shutting down):
          // everything it received is final now, and the close that follows is handled as a drop.
          const over = this.link.resumption.endedByService();
          this.logger.warn(
            `the service ended the session without a stop (shutting down?); the run continues ${over ? 'on a new session' : 'by resuming it'}`,
          );
        }
        return;
      case 'error':
        this.onServiceError(errorFromServiceMessage(msg, this.link.apiKey, this.link.resumption.sessionId));
        return;
    }
  }

  /** The session's part of `configured`: resumed (the audio from where the service stands) or a new generation. */
  private onConfigured(msg: ConfiguredMessage): void {
    const { resumption, ledger } = this.link;
    const outcome = resumption.configured(msg);
    const { resumed, newGeneration, previousSessionId } = outcome;
    const generation = resumption.generation;
    if (newGeneration) {
      // A new service session: seq numbering and audio offsets start again. The old session's final
      // text covers at most the audio sent before its last final arrived; what was sent after it only
      // ever became provisional text (dropped), so it is sent again to the new one.
      this.logger.warn(
        `the service could not resume session ${previousSessionId ?? '?'}; continuing as generation ${generation}, re-sending the audio sent after its last final text`,
      );
      this.reportRewind(ledger.startNewSession());
      this.link.emit('generation', { generation, sessionId: msg.session_id, previousSessionId });
    } else if (resumed) {
      if (msg.resume_audio_offset === undefined) this.logger.warn('the service did not say how much audio it has; nothing is re-sent');
      else this.reportRewind(ledger.resumeAt(msg.resume_audio_offset));
    }
    this.link.configured(msg, outcome);
  }

  /** A rewind of the ledger, told: what is sent again, and what the service needs but is gone. */
  private reportRewind(r: RewindResult): void {
    if (r.offset > r.sentUpTo) this.logger.warn(`the service reports ${r.offset} bytes of audio but ${r.sentUpTo} were sent`);
    if (r.offset >= r.sentUpTo) return;
    if (r.lost > 0)
      this.link.warn(
        `the service needs audio from byte ${r.offset} but only audio from byte ${r.firstRetained} is retained: ${r.lost} bytes cannot be re-sent`,
      );
    this.logger.info(`resuming audio from byte ${r.offset}: ${r.resent} bytes sent again`);
  }

  private onServiceError(err: DictationError): void {
    if (this.link.resumption.refusesResume(err, this.link.isReady())) {
      // A service without our resume extension: go on with a new session on the next connection.
      this.link.warn(`the service does not support resume (${err.message}); the run continues on a new session`);
      this.link.endWith(
        new DictationError({
          code: 'CONFIG_ERROR',
          field: err.field,
          message: `resume not supported: ${err.message}`,
          sessionId: err.sessionId,
          fatal: false,
        }),
      );
    } else if (err.fatal) {
      this.link.fail(err);
    } else {
      // The service closes right after an error: the close is retried (and logged) with this cause.
      this.link.endWith(err);
    }
  }
}
