/**
 * A loopback FAKE of an OpenAI-style realtime transcription server (fakeUpstream.ts says what the fakes
 * are), in the dialect chosen, following the documented messages (docs/engines.md):
 *
 * - `vllm` (vLLM `/v1/realtime`): `session.created {id, created}`; `session.update {model}` checked
 *   (`error {error, code: "model_not_found"}`); `input_audio_buffer.commit` starts a generation,
 *   `…commit {final: true}` ends it; `transcription.delta {delta}` as words come, `transcription.done
 *   {text, usage}`; after `done` the audio queue is cleared, as vLLM does (audio appended between the
 *   final commit and `done` is lost); 16 kHz.
 * - `openai` (GA) / `openai-beta`: `session.created {session}` / `transcription_session.created`;
 *   the update answered by `session.updated` / `transcription_session.updated` or an `error {error:
 *   {code}}`; 24 kHz only (the words come by the voiced time at 24 kHz: 16 kHz audio would lose
 *   words); each `input_audio_buffer.commit` is answered by `input_audio_buffer.committed`, one
 *   `conversation.item.input_audio_transcription.delta` per word and `.completed {transcript}`.
 */
import type { IncomingMessage } from 'node:http';
import { type FakeConnection, FakeServer, type FakeOptions, WordClock } from './fakeUpstream';

export type FakeDialect = 'vllm' | 'openai' | 'openai-beta';

export interface FakeRealtimeOptions extends FakeOptions {
  dialect: FakeDialect;
  /** The model accepted (default: any). */
  model?: string;
}

export class FakeRealtime extends FakeServer {
  /** Every `session.update` received (what the service asked for: model, language, prompt). */
  readonly updates: Array<Record<string, unknown>> = [];

  constructor(readonly ro: FakeRealtimeOptions) {
    super(ro);
  }

  get rate(): number {
    return this.ro.dialect === 'vllm' ? 16000 : 24000;
  }

  protected scheme(): string {
    return this.ro.tls ? 'wss' : 'ws';
  }

  protected override path(): string {
    return '/v1/realtime';
  }

  protected accept(conn: FakeConnection, _req: IncomingMessage): void {
    const d = this.ro.dialect;
    const clock = new WordClock(this.cursorFor(), this.rate, this.o);
    let generating = false;
    let queued: Buffer[] = [];
    let text = '';
    let itemNo = 0;
    /** OpenAI transcribes a buffer when it is committed: the words of the audio appended since. */
    const pendingOpenAi: string[] = [];
    const send = (m: object): void => this.send(conn, JSON.stringify(m));
    const words = (ws: string[]): void => {
      for (const w of ws) {
        const delta = text === '' ? w : ` ${w}`;
        text += delta;
        if (d === 'vllm') send({ type: 'transcription.delta', delta });
        else
          send({
            type: 'conversation.item.input_audio_transcription.delta',
            event_id: `ev_${itemNo}`,
            item_id: `item_${itemNo}`,
            content_index: 0,
            delta,
          });
      }
    };
    const commitState = (): void => {
      if (!this.o.perConnection) this.committed = { ...clock.cursor };
    };
    if (d === 'vllm') send({ type: 'session.created', id: `sess-fake`, created: Math.floor(Date.now() / 1000) });
    else if (d === 'openai')
      send({
        type: 'session.created',
        event_id: 'ev_0',
        session: { type: 'transcription', id: 'sess_fake', audio: { input: { format: { type: 'audio/pcm', rate: 24000 } } } },
      });
    else send({ type: 'transcription_session.created', event_id: 'ev_0', session: { id: 'sess_fake', input_audio_format: 'pcm16' } });

    conn.ws.on('message', (data, binary) => {
      if (binary) return;
      let m: Record<string, unknown>;
      try {
        m = JSON.parse(String(data)) as Record<string, unknown>;
      } catch {
        return send(
          d === 'vllm'
            ? { type: 'error', error: 'Invalid JSON', code: 'invalid_json' }
            : { type: 'error', error: { type: 'invalid_request_error', code: 'invalid_json' } },
        );
      }
      const t = m.type;
      if (t === 'session.update' || t === 'transcription_session.update') {
        this.updates.push(m);
        const s = m.session as Record<string, unknown> | undefined;
        const model =
          d === 'vllm'
            ? m.model
            : d === 'openai'
              ? (s?.audio as { input?: { transcription?: { model?: unknown } } })?.input?.transcription?.model
              : (s?.input_audio_transcription as { model?: unknown } | undefined)?.model;
        if (this.ro.model !== undefined && model !== this.ro.model) {
          return send(
            d === 'vllm'
              ? { type: 'error', error: `The model \`${String(model)}\` does not exist.`, code: 'model_not_found' }
              : { type: 'error', error: { type: 'invalid_request_error', code: 'model_not_found', message: 'no such model' } },
          );
        }
        if (d !== 'vllm') send({ type: t === 'session.update' ? 'session.updated' : 'transcription_session.updated', session: s });
      } else if (t === 'input_audio_buffer.append') {
        const pcm = Buffer.from(String(m.audio), 'base64');
        this.audioMs += (pcm.length / 2 / this.rate) * 1000;
        if (!this.onAudio(conn)) return;
        if (d === 'vllm' && !generating) queued.push(pcm);
        else if (d === 'vllm') words(clock.feed(pcm));
        else clock.feed(pcm).forEach((w) => pendingOpenAi.push(w));
      } else if (t === 'input_audio_buffer.commit') {
        if (conn.stalled) return;
        if (d === 'vllm') {
          if (m.final === true) {
            if (!generating) return;
            generating = false;
            send({ type: 'transcription.done', text, usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 } });
            text = '';
            queued = []; // vLLM clears its audio queue once a generation is done
            commitState();
          } else if (!generating) {
            generating = true;
            for (const pcm of queued.splice(0)) words(clock.feed(pcm));
          }
          return;
        }
        itemNo++;
        send({ type: 'input_audio_buffer.committed', item_id: `item_${itemNo}` });
        words(pendingOpenAi.splice(0));
        send({
          type: 'conversation.item.input_audio_transcription.completed',
          item_id: `item_${itemNo}`,
          content_index: 0,
          transcript: text,
        });
        text = '';
        commitState();
      } else {
        send(
          d === 'vllm'
            ? { type: 'error', error: `Unknown event type: ${String(t)}`, code: 'unknown_event' }
            : { type: 'error', error: { type: 'invalid_request_error', code: 'unknown_event' } },
        );
      }
    });
  }
}
