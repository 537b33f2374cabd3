/**
 * The remote engines (`--engine realtime`, `--engine vosk`): the recogniser is another machine. Each
 * session opens its own upstream connection before it is admitted (unreachable: INIT_ERROR with
 * `retry_after_ms`, and no session is left half-open), and talks to it through a
 * {@link RemoteSegmenterPort}. docs/engines.md describes the protocols and the fault bounds.
 */
import { type EffectiveConfig, keytermsOf } from '../../../protocol';
import type { ServerLogger } from '../../log';
import {
  type Engine,
  type EngineBusy,
  type EngineConnectRefusal,
  type EngineLink,
  EngineUnavailableError,
  type WorkerRecognizer,
} from '../engine';
import { SIMULATED_SAMPLE_RATES } from '../simulated';
import { type AuthScheme, defaultAuthFor } from './auth';
import { type ProofreadSettings, transcribeSentence } from './proofread';
import { RealtimeProtocol } from './realtime';
import { RemoteSegmenterPort } from './remotePort';
import {
  type UpstreamLink,
  type UpstreamProtocol,
  UpstreamRefusedError,
  type UpstreamSettings,
  UpstreamUnreachableError,
  shownUrl,
  urlProblem,
} from './upstream';
import { VoskProtocol } from './vosk';

const REMOTE_ENGINE_NAMES = ['realtime', 'vosk'] as const;
export type RemoteEngineName = (typeof REMOTE_ENGINE_NAMES)[number];

/** Bounds of the fault handling (docs/engines.md); the environment may shorten them for tests. */
export interface RemoteBounds {
  /** Opening a session's connection (and each reconnection attempt). */
  connectTimeoutMs: number;
  /** How long a session may be without its connection before it ends with INTERNAL_ERROR. */
  reconnectMs: number;
  /** A settle unanswered, with no message at all, for this long: the connection is made again. */
  stallMs: number;
  /** Audio held back in a session beyond this: new sessions are refused. */
  maxLagMs: number;
}

const DEFAULT_REMOTE_BOUNDS: RemoteBounds = { connectTimeoutMs: 5000, reconnectMs: 30_000, stallMs: 10_000, maxLagMs: 3000 };

export interface RemoteEngineOptions {
  engine: RemoteEngineName;
  url: string;
  model?: string;
  apiKey?: string;
  /** How the key is presented to the recogniser; by default chosen from `url` (auth.ts). */
  auth?: AuthScheme;
  ca?: Buffer;
  proofreadUrl?: string;
  /** How the key is presented to the proofreading endpoint; by default chosen from `proofreadUrl`. */
  proofreadAuth?: AuthScheme;
  proofreadModel?: string;
  bounds?: Partial<RemoteBounds>;
  log: ServerLogger;
}

/** A session's connection made at admission, handed to its port. */
class PreparedLink implements EngineLink {
  constructor(readonly link: UpstreamLink) {}
  close(): void {
    this.link.close();
  }
}

class RemoteEngine implements Engine {
  readonly languages = ['any'];
  private readonly ports = new Set<RemoteSegmenterPort>();
  private readonly bounds: RemoteBounds;

  constructor(
    readonly name: RemoteEngineName,
    private readonly protocol: UpstreamProtocol,
    /** The most the upstream takes (realtime: 16 or 24 kHz; undefined: any, as Vosk). */
    private readonly upstreamRate: number | undefined,
    private readonly o: RemoteEngineOptions,
    /** The protocol dialect found at start (undefined: the upstream could not be reached then). */
    private readonly dialect?: string,
  ) {
    this.bounds = { ...DEFAULT_REMOTE_BOUNDS, ...o.bounds };
  }

  /** OpenAI's dialects carry the session's keyterms as the transcription `prompt`; vLLM's and Vosk's have no room. */
  appliesKeyterms(): boolean {
    return this.dialect === 'openai' || this.dialect === 'openai-beta';
  }

  unsupported(config: EffectiveConfig): string | undefined {
    if (config.encoding !== 'pcm_s16le')
      return `encoding ${JSON.stringify(config.encoding)} is not supported; the only supported encoding is "pcm_s16le"`;
    const rates = SIMULATED_SAMPLE_RATES.filter((r) => this.upstreamRate === undefined || r <= this.upstreamRate);
    if (!(rates as readonly number[]).includes(config.sample_rate)) {
      return `sample_rate ${config.sample_rate} Hz is not supported by the ${this.name} engine; use one of ${rates.join(', ')}`;
    }
    return undefined;
  }

  async connect(config: EffectiveConfig): Promise<EngineLink | EngineConnectRefusal> {
    try {
      return new PreparedLink(await this.open(config));
    } catch (e) {
      const why = e instanceof Error ? e.message : String(e);
      const retryAfterMs = e instanceof UpstreamRefusedError ? 30_000 : 2000;
      this.o.log.warn('session refused: the speech recogniser cannot be reached', { reason: why, retry_after_ms: retryAfterMs });
      return { retryAfterMs, message: `the speech recogniser is not available now (${why}); retry after ${retryAfterMs} ms` };
    }
  }

  create(config: EffectiveConfig, link?: EngineLink): WorkerRecognizer {
    const prepared = link instanceof PreparedLink ? link.link : undefined;
    return {
      kind: 'worker',
      name: this.name,
      open: (init) => {
        const log = this.o.log.child({ session_id: init.sessionId });
        const rate = config.sample_rate;
        const proofread = this.proofreadSettings();
        const port: RemoteSegmenterPort = new RemoteSegmenterPort({
          init,
          name: this.name,
          ...(prepared ? { link: prepared } : {}),
          connect: () => this.open(config),
          ...(proofread ? { secondPass: (pcm: Buffer) => transcribeSentence(proofread, pcm, rate, config.language) } : {}),
          reconnectMs: this.bounds.reconnectMs,
          stallMs: this.bounds.stallMs,
          log,
          onClosed: (p) => this.ports.delete(p),
        });
        this.ports.add(port);
        return port;
      },
    };
  }

  busy(): EngineBusy | undefined {
    let worst = 0;
    for (const p of this.ports) worst = Math.max(worst, p.queuedMs);
    if (worst <= this.bounds.maxLagMs) return undefined;
    const retryAfterMs = Math.min(30_000, Math.max(1000, Math.ceil(worst)));
    return {
      retryAfterMs,
      message: `the speech recogniser is behind real time (${Math.round(worst)} ms of audio waiting in a session, more than ${this.bounds.maxLagMs} ms): no new session now; retry after ${retryAfterMs} ms`,
    };
  }

  async close(): Promise<void> {
    for (const p of [...this.ports]) p.close();
  }

  private async open(config: EffectiveConfig): Promise<UpstreamLink> {
    const keyterms = keytermsOf(config);
    const timeout = this.bounds.connectTimeoutMs;
    let timer: NodeJS.Timeout | undefined;
    const opening = this.protocol.open(config.sample_rate, { language: config.language, ...(keyterms.length ? { keyterms } : {}) });
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new UpstreamUnreachableError(`no connection within ${timeout} ms`)), timeout);
    });
    try {
      return await Promise.race([opening, late]);
    } catch (e) {
      void opening.then(
        (l) => l.close(),
        () => undefined,
      );
      throw e;
    } finally {
      clearTimeout(timer);
    }
  }

  private proofreadSettings(): ProofreadSettings | undefined {
    if (!this.o.proofreadUrl) return undefined;
    return {
      url: this.o.proofreadUrl,
      ...(this.o.apiKey ? { apiKey: this.o.apiKey } : {}),
      auth: this.o.proofreadAuth ?? defaultAuthFor(this.o.proofreadUrl),
      ...(this.o.ca ? { ca: this.o.ca } : {}),
      ...(this.o.proofreadModel ? { model: this.o.proofreadModel } : {}),
      timeoutMs: 30_000,
    };
  }
}

/**
 * Checks the upstream at start: a refused credential, model or endpoint throws an
 * EngineUnavailableError (the service exits 1 and says why); an upstream that cannot be reached now
 * is logged and the service starts (its sessions get INIT_ERROR until it is back).
 */
export async function openRemoteEngine(o: RemoteEngineOptions): Promise<RemoteEngine> {
  const bad =
    urlProblem(o.url, '--engine-url') ?? (o.proofreadUrl ? urlProblem(o.proofreadUrl, '--proofread-url', ['http:', 'https:']) : undefined);
  if (bad) throw new EngineUnavailableError(bad);
  const bounds = { ...DEFAULT_REMOTE_BOUNDS, ...o.bounds };
  const settings: UpstreamSettings = {
    url: o.url,
    ...(o.apiKey ? { apiKey: o.apiKey } : {}),
    auth: o.auth ?? defaultAuthFor(o.url),
    ...(o.ca ? { ca: o.ca } : {}),
    ...(o.model ? { model: o.model } : {}),
    connectTimeoutMs: bounds.connectTimeoutMs,
    log: o.log,
  };
  const protocol: UpstreamProtocol = o.engine === 'realtime' ? new RealtimeProtocol(settings) : new VoskProtocol(settings);
  let rate: number | undefined = o.engine === 'realtime' ? 24000 : undefined;
  let dialect: string | undefined;
  try {
    const probe = await protocol.probe();
    rate = probe.rate;
    dialect = probe.dialect;
    o.log.info('speech recogniser reached', {
      engine: o.engine,
      dialect: probe.dialect,
      url: shownUrl(o.url),
      auth: settings.auth,
      upstream_sample_rate: probe.rate,
    });
  } catch (e) {
    if (e instanceof UpstreamRefusedError) throw new EngineUnavailableError(e.message);
    // TLS failures are configuration, not an outage: the service does not start with them either.
    if (e instanceof Error && /CERT|certificate|SELF_SIGNED|UNABLE_TO_VERIFY|ERR_TLS/i.test(e.message))
      throw new EngineUnavailableError(`${e.message} (a private CA: --engine-ca FILE)`);
    o.log.warn('speech recogniser unreachable at start: sessions are refused (INIT_ERROR) until it is back', {
      url: shownUrl(o.url),
      reason: e instanceof Error ? e.message : String(e),
    });
  }
  return new RemoteEngine(o.engine, protocol, rate, o, dialect);
}
