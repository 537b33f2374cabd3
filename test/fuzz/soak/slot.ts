/**
 * One place of the soak: a person dictating, session after session. Each session (a "generation") sends the
 * loop of `audio.ts` at real-time pace (the ticker calls {@link SoakSlot.tick} every 100 ms), and at moments
 * the run picks it is dropped and resumed, stopped, or has its key revoked; then the place opens a new session
 * (with a new key after a revocation). When a session ends, its final text is checked against the words the
 * engine released for the frames the service accounted for.
 */
import WebSocket from 'ws';
import { FRAME_BYTES, ReleasedWords, SESSION_CONFIG, frameAt } from './audio';
import { TranscriptLog, type WireMessage, type WordCheck, checkWords } from './check';

export type Outcome = 'stopped' | 'revoked' | 'broken';

export interface GenerationResult {
  slot: number;
  outcome: Outcome;
  frames: number;
  reconnects: number;
  check: WordCheck;
  /** Replayed messages whose seq was handled before, finals repeated by id, unknown batch.replace targets. */
  repeatedSeqs: number;
  repeatedFinals: number;
  unknownTargets: number;
  problems: string[];
}

export interface ApiKey {
  key: string;
  id: string;
}

export interface SlotContext {
  wsUrl: string;
  released: ReleasedWords;
  script: readonly string[];
  createKey(): Promise<ApiKey>;
  revokeKey(id: string): Promise<void>;
  onResult(r: GenerationResult): void;
  /** Whether the run is ending: no new session, a session that becomes live is stopped. */
  ending(): boolean;
  /** When the next action of a live session is due (ms from now). */
  nextGapMs(): number;
  /** Pause before a new session, or before a dropped session reconnects (ms). */
  pauseMs(): number;
}

export type State = 'idle' | 'connecting' | 'live' | 'reconnecting' | 'stopping' | 'revoking';

const CONFIGURE_WAIT_MS = 20_000;
const END_WAIT_MS = 30_000;

class Generation {
  sessionId = '';
  readonly log = new TranscriptLog();
  /** Frames of the loop the service has (or will have) from this session: the next frame to send. */
  frames = 0;
  reconnects = 0;
  stopped = false;
  authError = false;
  errorSeen = false;
  audioSeconds: number | undefined;
  readonly problems: string[] = [];
}

export class SoakSlot {
  private current: State = 'idle';
  private since = Date.now();
  /** Time spent in each state, and how many times each was entered. */
  readonly time: Record<State, { ms: number; entered: number }> = {
    idle: { ms: 0, entered: 0 },
    connecting: { ms: 0, entered: 0 },
    live: { ms: 0, entered: 0 },
    reconnecting: { ms: 0, entered: 0 },
    stopping: { ms: 0, entered: 0 },
    revoking: { ms: 0, entered: 0 },
  };

  get state(): State {
    return this.current;
  }

  set state(next: State) {
    const now = Date.now();
    this.time[this.current].ms += now - this.since;
    this.time[next].entered++;
    this.current = next;
    this.since = now;
  }
  /** Set while a new session is waiting to open. */
  private restart: NodeJS.Timeout | undefined;
  private ws: WebSocket | undefined;
  private gen: Generation | undefined;
  nextActionAt = Infinity;
  /** WebSocket handshakes (connect to open) and configures (open to `configured`): total ms and count. */
  readonly handshake = { ms: 0, n: 0 };
  readonly configure = { ms: 0, n: 0 };
  /** `retries`: sockets given up after {@link CONFIGURE_WAIT_MS} without `configured`, and opened again. */
  readonly counts = { sessions: 0, reconnects: 0, revocations: 0, stops: 0, retries: 0 };

  constructor(
    readonly index: number,
    private key: ApiKey,
    private readonly ctx: SlotContext,
  ) {}

  /** Idle, with no session waiting to open. */
  get quiet(): boolean {
    return this.state === 'idle' && this.restart === undefined;
  }

  /** One 100 ms frame, while the session is live. */
  tick(): void {
    const ws = this.ws;
    if (this.state !== 'live' || !ws || ws.readyState !== WebSocket.OPEN) return;
    ws.send(frameAt(this.gen!.frames));
    this.gen!.frames++;
  }

  /** Opens a new session. */
  start(): void {
    this.restart = undefined;
    if (this.ctx.ending()) return;
    this.gen = new Generation();
    this.state = 'connecting';
    this.counts.sessions++;
    this.open();
  }

  /** Drops the socket (no close handshake) and resumes the session on a new one after a pause. */
  reconnect(): void {
    const gen = this.gen!;
    this.counts.reconnects++;
    gen.reconnects++;
    this.state = 'reconnecting';
    const old = this.ws;
    this.ws = undefined;
    old?.terminate();
    const resume = { session_id: gen.sessionId, last_seq: gen.log.lastSeq };
    setTimeout(() => {
      if (this.gen === gen && this.state === 'reconnecting') this.open(resume);
    }, this.ctx.pauseMs());
  }

  /** `control stop`: every word final, `status stopped`, close 1000. */
  stop(): void {
    this.counts.stops++;
    this.state = 'stopping';
    this.ws?.send(JSON.stringify({ type: 'control', action: 'stop' }));
    this.endWait(this.ws);
  }

  /**
   * Stops the audio, waits until the service has read every frame sent (two pings and their pongs), and
   * revokes the session's key: its pending text must come as finals, then AUTH_ERROR and close 4001.
   */
  revoke(): void {
    this.counts.revocations++;
    this.state = 'revoking';
    const ws = this.ws!;
    const gen = this.gen!;
    void (async () => {
      try {
        await roundTrip(ws);
        await roundTrip(ws);
        await this.ctx.revokeKey(this.key.id);
      } catch (e) {
        gen.problems.push(`revocation: ${(e as Error).message}`);
        ws.terminate();
      }
    })();
    this.endWait(ws);
  }

  private endWait(ws: WebSocket | undefined): void {
    const gen = this.gen!;
    setTimeout(() => {
      if (this.gen === gen && this.ws === ws) {
        gen.problems.push(`no close within ${END_WAIT_MS} ms while ${this.state}`);
        ws?.terminate();
      }
    }, END_WAIT_MS).unref();
  }

  private open(resume?: { session_id: string; last_seq: number }): void {
    const ws = new WebSocket(this.ctx.wsUrl, { headers: { authorization: `Bearer ${this.key.key}` }, perMessageDeflate: false });
    this.ws = ws;
    const gen = this.gen!;
    // A client gives up on a socket that brings no `configured` and tries again (the same resume, or a new session).
    const timer = setTimeout(() => {
      if (this.ws === ws && (this.state === 'connecting' || this.state === 'reconnecting')) {
        this.counts.retries++;
        this.ws = undefined;
        ws.terminate();
        this.open(resume);
      }
    }, CONFIGURE_WAIT_MS);
    const t0 = Date.now();
    let opened = t0;
    ws.on('open', () => {
      opened = Date.now();
      this.handshake.ms += opened - t0;
      this.handshake.n++;
      ws.send(JSON.stringify({ type: 'configure', config: resume ? { ...SESSION_CONFIG, resume } : SESSION_CONFIG }));
    });
    ws.on('message', (data) => {
      if (this.ws !== ws) return; // a dropped socket: what it still had is replayed on the new one
      let m: WireMessage & Record<string, unknown>;
      try {
        m = JSON.parse(String(data)) as WireMessage & Record<string, unknown>;
      } catch {
        gen.problems.push('a message that is not JSON');
        return;
      }
      if (m.type === 'configured') {
        clearTimeout(timer);
        this.configure.ms += Date.now() - opened;
        this.configure.n++;
      }
      this.onMessage(gen, m);
    });
    ws.on('error', () => undefined);
    ws.on('close', (code) => {
      clearTimeout(timer);
      if (this.ws === ws) this.onClose(gen, code);
    });
  }

  private onMessage(gen: Generation, m: WireMessage & Record<string, unknown>): void {
    if (gen.errorSeen) gen.problems.push(`a "${String(m.type)}" message after an error`);
    if (m.type === 'configured') {
      if (this.state === 'connecting') {
        gen.sessionId = String(m.session_id);
      } else if (this.state === 'reconnecting') {
        const offset = Number(m.resume_audio_offset);
        if (m.resumed !== true || m.session_id !== gen.sessionId) {
          gen.problems.push('resume refused');
          this.ws?.terminate();
          return;
        }
        if (!Number.isInteger(offset / FRAME_BYTES) || offset / FRAME_BYTES > gen.frames) {
          gen.problems.push(`resume_audio_offset ${offset} is not a frame the client sent (${gen.frames} sent)`);
        }
        gen.frames = Math.floor(offset / FRAME_BYTES);
      } else {
        gen.problems.push(`configured while ${this.state}`);
        return;
      }
      this.state = 'live';
      if (this.ctx.ending()) this.stop();
      else this.nextActionAt = Date.now() + this.ctx.nextGapMs();
      return;
    }
    gen.log.add(m);
    if (m.type === 'error') {
      gen.errorSeen = true;
      if (this.state === 'revoking' && m.code === 'AUTH_ERROR') gen.authError = true;
      else gen.problems.push(`error ${String(m.code)} while ${this.state}`);
    } else if (m.type === 'status' && m.state === 'stopped') {
      gen.stopped = true;
      const metrics = m.metrics as { audio_seconds?: unknown } | undefined;
      if (typeof metrics?.audio_seconds === 'number') gen.audioSeconds = metrics.audio_seconds;
    }
  }

  private onClose(gen: Generation, code: number): void {
    this.ws = undefined;
    let outcome: Outcome = 'broken';
    if (this.state === 'stopping') {
      outcome = 'stopped';
      if (code !== 1000 || !gen.stopped) gen.problems.push(`stop: close ${code}${gen.stopped ? '' : ' without "status stopped"'}`);
      // The service's own count of the audio it transcribed: the frames this client believes it has.
      if (gen.audioSeconds !== undefined && Math.abs(gen.audioSeconds - gen.frames / 10) > 0.05) {
        gen.problems.push(`the service transcribed ${gen.audioSeconds} s of audio; the client sent ${gen.frames / 10} s`);
      }
    } else if (this.state === 'revoking') {
      outcome = 'revoked';
      if (code !== 4001 || !gen.authError) gen.problems.push(`revocation: close ${code}${gen.authError ? '' : ' without AUTH_ERROR'}`);
    } else {
      gen.problems.push(`closed by the service (${code}) while ${this.state}`);
    }
    const check = checkWords(gen.log.words(), this.ctx.script, this.ctx.released.after(gen.frames));
    this.ctx.onResult({
      slot: this.index,
      outcome,
      frames: gen.frames,
      reconnects: gen.reconnects,
      check,
      repeatedSeqs: gen.log.repeatedSeqs,
      repeatedFinals: gen.log.repeatedFinals,
      unknownTargets: gen.log.unknownTargets,
      problems: gen.problems,
    });
    this.gen = undefined;
    this.state = 'idle';
    this.nextActionAt = Infinity;
    if (this.ctx.ending()) return;
    const next = (): void => {
      this.restart = setTimeout(() => this.start(), this.ctx.pauseMs());
    };
    if (outcome !== 'revoked') return next();
    // The revoked key opens nothing more: the next session gets a new key.
    this.restart = setTimeout(() => undefined, 60_000); // holds the place while the key is made
    this.ctx
      .createKey()
      .then((k) => {
        this.key = k;
      })
      .catch((e: unknown) => this.ctx.onResult(failure(this.index, `new key: ${(e as Error).message}`)))
      .finally(() => {
        clearTimeout(this.restart);
        this.restart = undefined;
        if (!this.ctx.ending()) next();
      });
  }
}

function failure(slot: number, problem: string): GenerationResult {
  const check = { expected: 0, received: 0, duplicates: 0, lost: 0, extra: 0, outOfOrder: 0, ok: true };
  return {
    slot,
    outcome: 'broken',
    frames: 0,
    reconnects: 0,
    check,
    repeatedSeqs: 0,
    repeatedFinals: 0,
    unknownTargets: 0,
    problems: [problem],
  };
}

/** A ping and its pong (rejects after 10 s or when the socket closes first). */
function roundTrip(ws: WebSocket): Promise<void> {
  return new Promise((resolve, reject) => {
    const done = (e?: Error): void => {
      clearTimeout(t);
      ws.off('pong', onPong);
      ws.off('close', onClose);
      if (e) reject(e);
      else resolve();
    };
    const onPong = (): void => done();
    const onClose = (): void => done(new Error('socket closed before the pong'));
    const t = setTimeout(() => done(new Error('no pong within 10 s')), 10_000);
    ws.on('pong', onPong);
    ws.on('close', onClose);
    ws.ping();
  });
}
