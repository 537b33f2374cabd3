/**
 * One live session's lifecycle: audio and controls from its client, `stop`, the end from outside
 * (endSession.ts), a decoder's failure, and disposal. What it is made of and what it sends (state,
 * segmenter, journal, `seq` numbering, events persisted and sent) is {@link SessionCore} (sessionCore.ts).
 * Knows nothing of sockets: it talks to its current peer through its `SessionPeer` (sessionTypes.ts;
 * absent while the socket is gone and the session waits to be resumed).
 */
import type { ControlAction, SentMetrics } from '../../protocol';
import { monotonicMs } from '../clock';
import type { EndReason } from '../counters';
import { whileProgressing } from '../engine/segmenterPort';
import { SessionCore } from './sessionCore';
import { STOP_STALL_MS, type SessionState } from './sessionTypes';
import { within } from './timers';

export class LiveSession extends SessionCore {
  /** The end from outside under way ({@link end}). */
  private ending: Promise<SentMetrics | undefined> | undefined;
  /** The client's stop under way. */
  private stopping: Promise<SentMetrics | undefined> | undefined;

  /** One binary audio frame (already checked: even length, within size); `now`: monotonic ms (clock.ts). */
  audio(frame: Buffer, now = monotonicMs()): void {
    this.totalFrames++;
    if (this.state === 'configured') {
      this.log.debug('audio before start: recording starts');
      this.state = 'recording';
    }
    if (this.state !== 'recording') {
      this.discardedFrames++;
      this.log.debug('audio discarded', { state: this.state, bytes: frame.length });
      return;
    }
    this.counters.audio(frame.length, this.config.sample_rate);
    this.segmenter.push(frame);
    this.flushTimer.audio(now);
  }

  /** A control action other than `stop` (see {@link stop}). Returns whether it changed the state. */
  control(action: Exclude<ControlAction, 'stop'>): boolean {
    const from = this.state;
    if (from === 'stopping' || from === 'stopped') {
      this.log.debug('control ignored after stop', { action });
      return false;
    }
    let to: SessionState = from;
    if (action === 'start' || action === 'resume') to = 'recording';
    else if (action === 'pause') to = 'paused';
    if (to === from) {
      this.log.debug('redundant control: no-op', { action, state: from });
      return false;
    }
    this.state = to;
    this.log.debug('state change', { action, from, to });
    return true;
  }

  /**
   * `stop`: `status stopping`, finalise everything (with proofreading), `status stopped` with metrics.
   * With `resumable` (service shutdown) the session is not marked stopped in storage, so a client
   * may resume it after the restart.
   */
  stop(opts: { reason: EndReason; resumable?: boolean }): Promise<SentMetrics | undefined> {
    if (this.state === 'stopping' || this.state === 'stopped') return Promise.resolve(undefined);
    this.stopping = this.stopNow(opts);
    return this.stopping;
  }

  private stopNow(opts: { reason: EndReason; resumable?: boolean }): Promise<SentMetrics | undefined> {
    this.state = 'stopping';
    this.flushTimer.clear();
    const message = opts.resumable ? 'service shutting down: finalising transcripts' : 'finalising transcripts';
    this.send({ type: 'status', state: 'stopping', message, metrics: this.metrics() });
    const flushed = this.track(this.segmenter.flush({ proofread: true }));
    // In-process engines finish here and now; a worker first decodes the audio it already has.
    if (!flushed) return Promise.resolve(this.finishStop(opts));
    const stallMs = this.config.stop_delay * 1000 + STOP_STALL_MS;
    return whileProgressing(this.segmenter, flushed, stallMs).then((outcome) => {
      if (this.state !== 'stopping') return undefined; // the decoder failed meanwhile: the session has ended
      if (outcome === 'stalled') {
        this.failed(`the speech decoder made no progress for ${stallMs} ms after stop`);
        return undefined;
      }
      return this.finishStop(opts);
    });
  }

  private finishStop(opts: { reason: EndReason; resumable?: boolean }): SentMetrics {
    this.state = 'stopped';
    this.stoppedAt = monotonicMs();
    const metrics = this.metrics();
    this.recordStop(opts.reason, opts.resumable === true);
    // Everything is final and persisted: the decoder is freed now, not when the stopped session is
    // forgotten (it stays for a replay), so its worker can load the next session's decoder meanwhile.
    if (!opts.resumable) this.segmenter.close();
    this.send({
      type: 'status',
      state: 'stopped',
      message: opts.resumable ? 'service shutting down; the session can be resumed after the restart' : 'session stopped',
      metrics,
      ...(opts.resumable ? { resumable: true } : {}),
    });
    this.log.info('session stopped', { reason: opts.reason, ...metrics });
    this.onStop?.(this);
    return metrics;
  }

  /** The end in storage: stopped for good (resumable: a last checkpoint instead), and the session's record. */
  private recordStop(reason: EndReason, resumable: boolean): void {
    const at = new Date().toISOString();
    try {
      if (resumable) this.journal.saveCheckpoint(this.segmenter.checkpoint());
      else this.journal.markStopped(at);
    } catch (e) {
      this.log.error('could not record the end of the session', { error: e });
    }
    this.recordEnd(reason, at);
  }

  /**
   * Ended from outside (endSession.ts): no more audio; everything the decoder has made final and proofread,
   * waited for while it progresses and at most `boundMs` (past that, the pending text final as it stands and
   * later events dropped); then the end recorded. Undefined when already ended (a stop under way is awaited).
   */
  end(opts: { reason: EndReason; boundMs: number; resumable?: boolean }): Promise<SentMetrics | undefined> {
    if (this.ending) return this.ending;
    if (this.state === 'stopped') return Promise.resolve(undefined);
    if (this.state === 'stopping') {
      const stop = this.stopping ?? Promise.resolve(undefined);
      return within(stop, opts.boundMs).then((r) => (r === 'late' ? undefined : r));
    }
    this.ending = this.endNow(opts);
    return this.ending;
  }

  private async endNow(opts: { reason: EndReason; boundMs: number; resumable?: boolean }): Promise<SentMetrics | undefined> {
    this.state = 'stopping';
    this.flushTimer.clear();
    const flushed = this.track(this.segmenter.flush({ proofread: true }));
    // As long as the decoder makes progress (as for a stop), and at most `boundMs` in all.
    const stallMs = this.config.stop_delay * 1000 + STOP_STALL_MS;
    const outcome = flushed && (await within(whileProgressing(this.segmenter, flushed, stallMs), opts.boundMs));
    if (outcome === 'late' || outcome === 'stalled') {
      if (!this.isLive) return undefined; // the decoder failed meanwhile: the session has ended
      const queued = Math.round(this.queuedMs());
      this.log.warn('decoder did not finish in time for the end of the session: pending text made final as it stands', {
        reason: opts.reason,
        outcome,
        bound_ms: outcome === 'late' ? opts.boundMs : stallMs,
        undecoded_audio_ms: queued,
      });
      this.finaliseAsItStands();
      this.cutOff = true;
    }
    if (!this.isLive) return undefined;
    this.state = 'stopped';
    this.stoppedAt = monotonicMs();
    const metrics = this.metrics();
    this.recordStop(opts.reason, opts.resumable === true);
    if (!opts.resumable) this.segmenter.close();
    this.log.info('session ended', { reason: opts.reason, ...metrics });
    this.onStop?.(this);
    return metrics;
  }

  /**
   * Finalises pending text (it is persisted and sent to the peer if there is one). Used before an
   * error closes the socket.
   */
  flush(opts: { proofread: boolean }): Promise<void> | undefined {
    if (!this.isLive) return undefined;
    return this.track(this.segmenter.flush(opts));
  }

  /**
   * The decoder failed: the pending text is made final as it stands (nothing shown is lost), the
   * session ends, and the peer gets INTERNAL_ERROR.
   */
  failed(message: string): void {
    if (this.state === 'stopped' || this.failedMessage) return;
    this.flushTimer.clear();
    const queued = Math.round(this.queuedMs());
    this.log.error('speech decoder failed: session ended', { reason: message, undecoded_audio_ms: queued });
    this.finaliseAsItStands();
    this.failedMessage = message; // from here on, anything the failed decoder still sends is dropped
    this.state = 'stopped';
    this.stoppedAt = monotonicMs();
    this.recordStop('decoder failure', false);
    this.segmenter.close();
    this.onStop?.(this);
    const lost = queued > 0 ? `; the last ${queued} ms of audio were not transcribed` : '';
    this.peer?.fail?.(
      'INTERNAL_ERROR',
      `speech decoder failed; the session has ended (its text so far is final)${lost}; start a new session`,
    );
  }

  dispose(): void {
    this.flushTimer.clear();
    this.peer = undefined;
    this.segmenter.close();
  }
}
