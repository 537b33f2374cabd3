/**
 * The service's Prometheus metrics (prom-client), in a registry of their own (never prom-client's global
 * one): what the sessions and the API counted ({@link Tallies}, counters.ts), read when scraped, and the
 * figures of the moment (live sessions, decoder backlog, backends, readiness), collected at scrape time
 * too. Nothing here runs on the audio path. Every name starts with `dictee_`; docs/server.md lists them.
 */
import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import { COUNTED_ERROR_CODES, END_REASONS, TRANSCRIPT_EVENTS, type Tallies } from '../counters';
import type { BackendName } from '../storage/health';
import type { Readiness } from './readiness';

const BACKENDS: readonly BackendName[] = ['sqlite', 'postgresql', 'redis'];

interface MetricsSource {
  tallies: Tallies;
  /** Live sessions, those with a connection, and the audio they have waiting to be decoded (ms). */
  live(): { live: number; connected: number; backlogMs: number; worstBacklogMs: number };
  /** Open WebSocket connections. */
  connections(): number;
  /** Whether decoding is behind real time (new sessions refused). */
  engineBusy(): boolean;
  readiness(): Promise<Readiness>;
}

/** An end reason as a label value: `client stop` → `client_stop`. */
function reasonLabel(reason: string): string {
  return reason.replace(/ /g, '_');
}

/** A counter whose value is `read()` at scrape time (the count itself is kept as a plain number). */
function countedTotal(registry: Registry, name: string, help: string, read: () => number): void {
  new Counter({
    name,
    help,
    registers: [registry],
    collect() {
      this.reset();
      this.inc(read());
    },
  });
}

/** A counter with one label, each of a closed set of values (all shown, from 0). */
function countedBy<K extends string>(
  registry: Registry,
  name: string,
  help: string,
  label: string,
  counts: Record<K, number>,
  values: readonly K[],
  show: (v: K) => string = (v) => v,
): void {
  new Counter({
    name,
    help,
    labelNames: [label],
    registers: [registry],
    collect() {
      this.reset();
      for (const v of values) this.inc({ [label]: show(v) }, counts[v]);
    },
  });
}

function gauge(registry: Registry, name: string, help: string, read: () => number, labelNames: string[] = []): Gauge {
  return new Gauge({
    name,
    help,
    labelNames,
    registers: [registry],
    collect() {
      if (!labelNames.length) this.set(read());
    },
  });
}

/** The registry of the service's metrics, with Node's process metrics (`dictee_process_…`, `dictee_nodejs_…`). */
export function serviceMetrics(src: MetricsSource): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'dictee_' });
  const t = src.tallies;

  countedTotal(registry, 'dictee_sessions_started_total', 'New sessions configured on this instance.', () => t.sessionsStarted);
  countedTotal(
    registry,
    'dictee_sessions_resumed_total',
    'Sessions resumed on this instance (from memory or from storage).',
    () => t.sessionsResumed,
  );
  countedBy(
    registry,
    'dictee_sessions_ended_total',
    'Sessions ended on this instance, by the end reason of their record.',
    'reason',
    t.sessionsEnded,
    END_REASONS,
    reasonLabel,
  );
  countedTotal(registry, 'dictee_audio_seconds_total', 'Seconds of audio the sessions took while recording.', () => t.audioSeconds);
  countedBy(
    registry,
    'dictee_transcript_events_total',
    'Transcript events sent: transcript by status (streaming, interim, final), and batch.replace.',
    'type',
    t.transcriptEvents,
    TRANSCRIPT_EVENTS,
  );
  countedBy(
    registry,
    'dictee_errors_total',
    'Errors sent to clients (HTTP error answers, WebSocket upgrades refused, error messages), by code.',
    'code',
    t.errors,
    COUNTED_ERROR_CODES,
  );
  countedTotal(
    registry,
    'dictee_decode_seconds_total',
    'Seconds the decoders of this process spent decoding (with dictee_decoded_audio_seconds_total: the real-time factor).',
    () => t.decodeSeconds,
  );
  countedTotal(
    registry,
    'dictee_decoded_audio_seconds_total',
    'Seconds of audio the decoders of this process decoded (not counted for a remote recogniser).',
    () => t.decodedAudioSeconds,
  );

  let rtfFrom = { decode: 0, audio: 0 };
  gauge(
    registry,
    'dictee_decoder_real_time_factor',
    'Decoding time over audio decoded, since the previous scrape (0 when nothing was decoded): above 1, decoding falls behind.',
    () => {
      const now = { decode: t.decodeSeconds, audio: t.decodedAudioSeconds };
      const audio = now.audio - rtfFrom.audio;
      const rtf = audio > 0 ? (now.decode - rtfFrom.decode) / audio : 0;
      rtfFrom = now;
      return rtf;
    },
  );
  gauge(
    registry,
    'dictee_sessions_live',
    'Live sessions on this instance (with a connection or waiting to be resumed).',
    () => src.live().live,
  );
  gauge(registry, 'dictee_sessions_connected', 'Live sessions holding a WebSocket connection.', () => src.live().connected);
  gauge(registry, 'dictee_websocket_connections', 'Open WebSocket connections.', () => src.connections());
  gauge(
    registry,
    'dictee_decoder_backlog_seconds',
    'Audio received and not decoded yet, all live sessions together.',
    () => src.live().backlogMs / 1000,
  );
  gauge(
    registry,
    'dictee_decoder_backlog_max_seconds',
    'Audio waiting to be decoded in the session furthest behind (above 2 s new sessions are refused).',
    () => src.live().worstBacklogMs / 1000,
  );
  gauge(registry, 'dictee_engine_busy', '1 while decoding is behind real time and new sessions are refused.', () =>
    src.engineBusy() ? 1 : 0,
  );

  // The readiness gauges ask the backends once per scrape (health.ts caches the answer for a second).
  let readinessNow: Promise<Readiness> | undefined;
  const current = (): Promise<Readiness> =>
    (readinessNow ??= src.readiness().finally(() => setImmediate(() => (readinessNow = undefined))));
  new Gauge({
    name: 'dictee_backend_up',
    help: 'Whether each backend of this instance answers (1) or not (0): sqlite, postgresql, redis.',
    labelNames: ['backend'],
    registers: [registry],
    async collect() {
      const r = await current();
      this.reset();
      for (const b of BACKENDS) if (r.backends[b] !== undefined) this.set({ backend: b }, r.backends[b] ? 1 : 0);
    },
  });
  new Gauge({
    name: 'dictee_ready',
    help: 'Whether the instance is ready for new sessions (GET /readyz answers 200).',
    registers: [registry],
    async collect() {
      this.set((await current()).ready ? 1 : 0);
    },
  });
  new Gauge({
    name: 'dictee_draining',
    help: '1 while the instance drains (shutdown): its live sessions are finalised, no new ones are taken.',
    registers: [registry],
    async collect() {
      this.set((await current()).draining ? 1 : 0);
    },
  });
  return registry;
}
