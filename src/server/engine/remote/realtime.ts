/**
 * `--engine realtime`: an OpenAI-style realtime transcription WebSocket, in the three dialects that
 * exist (docs/engines.md names the sources read):
 *
 * - `vllm`: vLLM's `/v1/realtime`. Server `session.created` (no `session` object); client
 *   `session.update {model, language}` (no acknowledgement: a refusal is an `error`), then
 *   `input_audio_buffer.commit` to start a generation, `input_audio_buffer.append {audio: base64 PCM16
 *   16 kHz}`, `input_audio_buffer.commit {final: true}` to end it; server `transcription.delta {delta}`,
 *   `transcription.done {text}`, `error {error, code}`. Audio appended between the final commit and the
 *   `done` would be dropped by the server, so it is held until the next generation starts.
 * - `openai`: OpenAI's GA Realtime API. `session.created {session}`; `session.update {session: {type:
 *   "transcription", audio: {input: {format: {type: "audio/pcm", rate: 24000}, transcription: {model,
 *   language, prompt}, turn_detection: null}}}}` answered by `session.updated`; appends (24 kHz), a
 *   `input_audio_buffer.commit` per utterance; `conversation.item.input_audio_transcription.delta
 *   {item_id, delta}` and `.completed {item_id, transcript}`; `error {error: {type, code, message}}`.
 * - `openai-beta`: the same with `transcription_session.created`/`.update`/`.updated` and
 *   `session: {input_audio_format: "pcm16", input_audio_transcription: {…}, turn_detection: null}`
 *   (Azure OpenAI, Speaches).
 *
 * Turn detection is always ours (the segmenter's rules): the upstream's server VAD is turned off.
 */
import type WebSocket from 'ws';
import { Resampler } from './resample';
import {
  type Inbox,
  type UpstreamEvents,
  type UpstreamLink,
  type UpstreamProtocol,
  type UpstreamSettings,
  UpstreamRefusedError,
  UpstreamUnreachableError,
  firstMessage,
  failure,
  openSocket,
  parseObject,
  shownType,
  sizeOf,
} from './upstream';

type RealtimeDialect = 'vllm' | 'openai' | 'openai-beta';

/** vLLM acknowledges no `session.update`: at start, this long without an `error` means the model was accepted. */
const VLLM_QUIET_MS = 800;

const IGNORED = new Set([
  'session.created',
  'session.updated',
  'transcription_session.created',
  'transcription_session.updated',
  'input_audio_buffer.committed',
  'input_audio_buffer.speech_started',
  'input_audio_buffer.speech_stopped',
  'input_audio_buffer.cleared',
  'conversation.created',
  'conversation.item.created',
  'conversation.item.added',
  'conversation.item.done',
  'conversation.item.input_audio_transcription.segment',
  'rate_limits.updated',
]);

/** Error codes that refuse the session itself (its model, its credential): no reconnection helps. */
const REFUSALS = /model_not_found|model_not_validated|invalid_api_key|unauthori[sz]ed|insufficient_quota/;

function dialectOf(m: Record<string, unknown>): RealtimeDialect | undefined {
  if (m.type === 'transcription_session.created') return 'openai-beta';
  if (m.type === 'session.created') return m.session && typeof m.session === 'object' ? 'openai' : 'vllm';
  return undefined;
}

function errorCode(m: Record<string, unknown>): string {
  const e = m.error;
  const code = e && typeof e === 'object' ? (e as Record<string, unknown>).code : m.code;
  return shownType(code ?? 'unknown');
}

export function sessionUpdate(dialect: RealtimeDialect, model: string | undefined, language: string, keyterms?: readonly string[]): object {
  const prompt = keyterms?.length ? keyterms.join(', ') : undefined;
  const lang = language === 'any' ? undefined : language;
  if (dialect === 'vllm') return { type: 'session.update', ...(model ? { model } : {}), ...(lang ? { language: lang } : {}) };
  const transcription = { ...(model ? { model } : {}), ...(lang ? { language: lang } : {}), ...(prompt ? { prompt } : {}) };
  if (dialect === 'openai-beta') {
    return {
      type: 'transcription_session.update',
      session: { input_audio_format: 'pcm16', input_audio_transcription: transcription, turn_detection: null },
    };
  }
  return {
    type: 'session.update',
    session: {
      type: 'transcription',
      audio: { input: { format: { type: 'audio/pcm', rate: 24000 }, transcription, turn_detection: null } },
    },
  };
}

class RealtimeLink implements UpstreamLink {
  readonly rate: number;
  private events: UpstreamEvents | undefined;
  private readonly resampler: Resampler;
  private text = '';
  /** Session bytes given to send(), and those covered by the last commit. */
  private sent = 0;
  private committedAt = 0;
  private settling = false;
  /** vLLM: audio that arrived after a final commit, sent once the next generation has started. */
  private holding: Buffer[] | undefined;
  private closed = false;

  private readonly ws: WebSocket;

  constructor(
    inbox: Inbox,
    readonly dialect: RealtimeDialect,
    sampleRate: number,
    private readonly s: UpstreamSettings,
  ) {
    this.rate = dialect === 'vllm' ? 16000 : 24000;
    this.resampler = new Resampler(sampleRate, this.rate);
    const ws = (this.ws = inbox.ws);
    ws.on('close', (code) => this.gone(`the recogniser closed the connection (code ${code})`));
    ws.on('error', (e: Error & { code?: string }) => this.gone(failure(e)));
    if (dialect === 'vllm') this.send0({ type: 'input_audio_buffer.commit' }); // starts the first generation
    this.inbox = inbox;
  }

  private readonly inbox: Inbox;

  attach(events: UpstreamEvents): void {
    this.events = events;
    this.inbox.set((data, binary) => this.onMessage(data, binary));
  }

  send(pcm: Buffer): void {
    this.sent += pcm.length;
    const out = this.resampler.push(pcm);
    if (out.length === 0) return;
    if (this.holding) this.holding.push(out);
    else this.append(out);
  }

  settle(): void {
    if (this.settling) return;
    if (this.sent === this.committedAt) {
      queueMicrotask(() => this.events?.settled(this.sent));
      return;
    }
    this.settling = true;
    this.committedAt = this.sent;
    if (this.dialect === 'vllm') {
      this.send0({ type: 'input_audio_buffer.commit', final: true });
      this.holding = [];
    } else {
      this.send0({ type: 'input_audio_buffer.commit' });
    }
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.ws.removeAllListeners('close');
    this.ws.on('error', () => undefined);
    this.ws.close(1000);
    setTimeout(() => this.ws.terminate(), 2000).unref();
  }

  private append(pcm: Buffer): void {
    this.send0({ type: 'input_audio_buffer.append', audio: pcm.toString('base64') });
  }

  private send0(m: object): void {
    if (this.closed || this.ws.readyState !== this.ws.OPEN) return;
    this.ws.send(JSON.stringify(m));
  }

  private onMessage(data: WebSocket.RawData, binary: boolean): void {
    const ev = this.events;
    ev?.activity();
    const m = binary ? undefined : parseObject(data);
    if (!m) {
      this.s.log.warn('recogniser sent a message that is not a JSON object: ignored', { bytes: sizeOf(data) });
      return;
    }
    const t = m.type;
    if (t === 'transcription.delta' || t === 'conversation.item.input_audio_transcription.delta') {
      if (typeof m.delta !== 'string') return this.malformed(t);
      this.text += m.delta;
      ev?.partial(this.text);
    } else if (t === 'transcription.done' || t === 'conversation.item.input_audio_transcription.completed') {
      const text = t === 'transcription.done' ? m.text : m.transcript;
      this.finish(typeof text === 'string' ? text : this.text);
    } else if (t === 'conversation.item.input_audio_transcription.failed') {
      this.s.log.warn('recogniser could not transcribe an utterance', { code: errorCode(m) });
      this.finish(this.text);
    } else if (t === 'error') {
      const code = errorCode(m);
      this.s.log.warn('recogniser sent an error', { code });
      if (REFUSALS.test(code)) return this.gone(`the recogniser refused the session (error ${code})`, true);
      // A commit of too little audio (OpenAI) has nothing to transcribe: it is answered all the same.
      if (this.settling && /commit_empty|buffer_too_small/.test(code)) this.finish(this.text);
    } else if (!IGNORED.has(String(t))) {
      this.s.log.warn('recogniser sent an unknown event: ignored', { type: shownType(t), bytes: sizeOf(data) });
    }
  }

  private malformed(t: unknown): void {
    this.s.log.warn('recogniser sent a malformed event: ignored', { type: shownType(t) });
  }

  /** The upstream's utterance is done (the answer to a commit). */
  private finish(text: string): void {
    this.text = '';
    const covered = this.committedAt;
    this.events?.final(text, covered);
    if (!this.settling) return;
    this.settling = false;
    if (this.dialect === 'vllm') {
      this.send0({ type: 'input_audio_buffer.commit' }); // the next generation
      const held = this.holding ?? [];
      this.holding = undefined;
      for (const b of held) this.append(b);
    }
    this.events?.settled(covered);
  }

  private gone(reason: string, refused = false): void {
    if (this.closed) return;
    this.closed = true;
    this.ws.terminate();
    this.events?.lost(reason, refused);
  }
}

export class RealtimeProtocol implements UpstreamProtocol {
  readonly name = 'realtime';
  constructor(private readonly s: UpstreamSettings) {}

  async open(sampleRate: number, opts: { language: string; keyterms?: readonly string[] }): Promise<UpstreamLink> {
    const { inbox, dialect } = await this.handshake(opts.language, opts.keyterms);
    return new RealtimeLink(inbox, dialect, sampleRate, this.s);
  }

  async probe(): Promise<{ dialect: string; rate: number }> {
    const { inbox, dialect } = await this.handshake('any', undefined, true);
    inbox.ws.close(1000);
    return { dialect, rate: dialect === 'vllm' ? 16000 : 24000 };
  }

  /** Connects, reads the dialect from the first event, configures the session. */
  private async handshake(
    language: string,
    keyterms: readonly string[] | undefined,
    probe = false,
  ): Promise<{ inbox: Inbox; dialect: RealtimeDialect }> {
    const inbox = await openSocket(this.s);
    const ws = inbox.ws;
    try {
      const dialect = await firstMessage(inbox, this.s.connectTimeoutMs, 'session.created event', dialectOf);
      ws.send(JSON.stringify(sessionUpdate(dialect, this.s.model, language, keyterms)));
      // OpenAI answers session updates; vLLM answers only a refusal (waited for at start only).
      const wait = dialect === 'vllm' ? (probe ? VLLM_QUIET_MS : 0) : this.s.connectTimeoutMs;
      if (wait > 0) {
        const answer = await firstMessage(inbox, wait, 'answer to its session update', (m) =>
          m.type === 'error' || m.type === 'session.updated' || m.type === 'transcription_session.updated' ? m : undefined,
        ).catch((e: unknown) => {
          if (dialect === 'vllm' && e instanceof UpstreamUnreachableError && /within/.test(e.message)) return undefined; // quiet: accepted
          throw e;
        });
        if (answer?.type === 'error') {
          const model = this.s.model ? `the model "${this.s.model}"` : 'a session without --engine-model';
          throw new UpstreamRefusedError(`the recogniser refused ${model} (error ${errorCode(answer)})`);
        }
      }
      return { inbox, dialect };
    } catch (e) {
      ws.terminate();
      throw e;
    }
  }
}
