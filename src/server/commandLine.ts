/**
 * The service's command line: its usage, its options, and the settings read from the environment
 * (timings for tests, remote bounds, the slot lease), each checked with a message a person can act on.
 */
import { existsSync, mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DEFAULT_HOST, DEFAULT_PORT } from '../protocol/http';
import { DEFAULT_TIMING, type Timing } from './app';
import { ENGINE_NAMES, type EngineName } from './engine/pooled';
import { AUTH_SCHEMES, type AuthScheme } from './engine/remote/auth';
import type { RemoteBounds } from './engine/remote/remoteEngine';
import { VAD_NAMES, type VadName } from './engine/sileroVad';
import { SEARCH_EFFORTS, type SearchEffort } from './engine/pocketsphinx/languages';
import { UsageError, nonEmpty, parseCommandLine, wholeNumber } from '../shared/args';
import { TrustProxyError, compileTrustProxy } from './http/clientAddress';
import { MASTER_KEY_FAILURES } from './storage/limits';
import { SUBCOMMAND_USAGE } from './subcommands';
import { SSO_OPTIONS, SSO_USAGE, type SsoCliOptions, parseSsoOptions } from './ssoOptions';

export const USAGE = `Usage: node dist/server.js [options]     (or: npm run server -- [options])

The Live Transcription Service (HTTP + WebSocket).

Options:
  --host H               interface to listen on (default ${DEFAULT_HOST})
  --port P               port (default ${DEFAULT_PORT}; 0 picks a free port)
  --data-dir DIR         where keys, sessions and resume data are kept (default ./.dictee-data)
  --engine NAME          transcription engine:
                           simulated     (default) releases a script: text without recognising speech
                           pocketsphinx  English speech recognition (Debian: libpocketsphinx3
                                         pocketsphinx-en-us)
                           sherpa-onnx   streaming neural model installed with npm run models
                           realtime      a remote recogniser speaking the OpenAI-style realtime
                                         transcription protocol (vLLM, OpenAI, Azure OpenAI, Speaches)
                           vosk          a remote Vosk server (WebSocket)
  --engine-url URL       realtime: wss://HOST/v1/realtime; vosk: ws://HOST:2700 (the credential
                         goes in DICTEE_ENGINE_API_KEY, never in the URL)
  --engine-model NAME    the model the realtime recogniser is asked for
  --engine-ca FILE       PEM CA certificates that verify the recogniser's TLS (internal servers)
  --engine-auth SCHEME   how DICTEE_ENGINE_API_KEY is sent to the recogniser: bearer
                         (Authorization: Bearer KEY) or api-key (Azure OpenAI's api-key: KEY header);
                         default api-key for *.openai.azure.com and *.cognitiveservices.azure.com,
                         else bearer
  --proofread-url URL    a second pass on each finished sentence by an OpenAI-style
                         /v1/audio/transcriptions endpoint (realtime and vosk engines)
  --proofread-auth SCHEME
                         the same as --engine-auth, for --proofread-url (its default from its URL)
  --model DIR            pocketsphinx: model directory (default /usr/share/pocketsphinx/model/en-us)
  --model NAME|DIR       sherpa-onnx (required): a streaming model installed with npm run models, by
                         name (in DICTEE_MODELS_DIR, default ~/.cache/dictee/models) or directory
  --search EFFORT        pocketsphinx: accurate (default) or fast, narrower bounds where a language
                         was measured with them (French: about a fifth less CPU per session, about
                         3 words in 100 more wrong; docs/engines.md); others search as accurate
  --proofread-model NAME|DIR
                         sherpa-onnx: an offline model (Parakeet TDT 0.6B v3) that decodes each finished
                         sentence again and applies the session's keyterms (default: the first pass
                         with a capital and a final period)
  --workers N            decoder worker threads (default: one per core; not for simulated
                         unless --vad silero)
  --vad NAME             voice-activity detector that ends utterances and sentences:
                           energy        (default) signal level against an adaptive noise floor
                           silero        Silero VAD (neural, sherpa-onnx-node; 16 kHz only), in
                                         the decoder worker threads (not with realtime or vosk)
  --vad-model FILE       the Silero VAD ONNX file (default: the one npm run vad:setup installs); it
                         must be the pinned file (sha256 checked before it is loaded)
  --script FILE          UTF-8 text the simulated engine releases, replacing its built-in reports
                         (a first line "#utterances": one utterance per line)
  --concurrency-limit N  live sessions per organisation (default 10)
  --per-key-limit N      live sessions per API key (default: no limit of its own)
  --rate-limit N         session inits + WebSocket connections per key per window (default 120)
  --rate-window S        rate-limit window in seconds (default 60)
  --retention-days D     keep session records and their transcript events D days after the
                         session ended (default 30)
  --database URL         keep keys, sessions and resume data in PostgreSQL
                         (postgres://user:password@host:5432/db) instead of SQLite in --data-dir,
                         so that several instances share them
  --redis URL            count rate limits and concurrency slots in Redis (redis://host:6379), one
                         count for every instance, and tell every instance of a revocation
  --instance-id ID       this instance's name in logs and in storage (default: host name and pid)
  --trust-proxy HOPS|ADDRESSES
                         behind a proxy: take the client's address (counted and logged) from
                         X-Forwarded-For: HOPS proxies in front (1 for one), or the proxies'
                         addresses and ranges, comma-separated (10.0.0.5, 10.0.0.0/8, loopback);
                         without it, X-Forwarded-For is ignored
  --metrics-port N       serve Prometheus metrics on GET /metrics on this port, a listener of its
                         own without keys (default: none; 0 picks a free port)
  --metrics-host H       its interface (default 127.0.0.1); another address must be protected by
                         the network or a proxy
  --no-dashboard         do not serve the dashboard (/dashboard, docs/dashboard.md); / and
                         /dashboard then answer 404 as any unknown path
  -h, --help             show this help

${SSO_USAGE}
${SUBCOMMAND_USAGE}
Environment:
  DICTEE_MASTER_KEY      master key for key management; if unset, one is generated at the first
                         start, printed once, and only its SHA-256 is kept in the store; a store's
                         master key is never replaced by another (a start that disagrees: exit 2)
  DICTEE_MASTER_KEY_FILE a file holding the master key instead (e.g. a systemd credential)
  DICTEE_DATABASE_URL    the same as --database (the flag wins)
  DICTEE_REDIS_URL       the same as --redis (the flag wins)
  DICTEE_TRUST_PROXY     the same as --trust-proxy (the flag wins)
  DICTEE_METRICS_PORT    the same as --metrics-port (the flag wins)
  DICTEE_METRICS_HOST    the same as --metrics-host (the flag wins)
  DICTEE_DASHBOARD       off: the same as --no-dashboard
  DICTEE_SEARCH          the same as --search (the flag wins; ignored by other engines)
  DICTEE_LOG_LEVEL       trace, debug, info (default), warn or error
  DICTEE_ENGINE_API_KEY  the credential sent to the remote recogniser (see --engine-auth)
`;

export { UsageError };

export interface CliOptions {
  host: string;
  port: number;
  dataDir: string;
  engine: EngineName;
  model?: string;
  engineUrl?: string;
  engineModel?: string;
  engineCa?: string;
  engineAuth?: AuthScheme;
  proofreadUrl?: string;
  proofreadAuth?: AuthScheme;
  proofreadModel?: string;
  vad: VadName;
  vadModel?: string;
  /** `--search` or DICTEE_SEARCH (pocketsphinx; default accurate). */
  search: SearchEffort;
  workers?: number;
  script?: string;
  concurrencyLimit: number;
  rateLimit: number;
  rateWindowS: number;
  perKeyLimit?: number;
  retentionDays: number;
  /** PostgreSQL URL (`--database` or DICTEE_DATABASE_URL), or undefined for SQLite in the data dir. */
  database?: string;
  /** Redis URL (`--redis` or DICTEE_REDIS_URL), or undefined for limits in this process. */
  redis?: string;
  instanceId: string;
  /** `--trust-proxy` or DICTEE_TRUST_PROXY, checked (clientAddress.ts), or undefined: X-Forwarded-For ignored. */
  trustProxy?: string;
  /** `--metrics-port` or DICTEE_METRICS_PORT: the metrics listener's port, or undefined for none. */
  metricsPort?: number;
  /** `--metrics-host` or DICTEE_METRICS_HOST (default 127.0.0.1). */
  metricsHost: string;
  /** The dashboard at /dashboard (docs/dashboard.md): false with `--no-dashboard` or DICTEE_DASHBOARD=off. */
  dashboard: boolean;
  /** The dashboard's single sign-on and second factor options (ssoOptions.ts). */
  signIn: SsoCliOptions;
  help: boolean;
}

const OPTIONS = {
  host: { type: 'string' },
  port: { type: 'string' },
  'data-dir': { type: 'string' },
  engine: { type: 'string' },
  model: { type: 'string' },
  'engine-url': { type: 'string' },
  'engine-model': { type: 'string' },
  'engine-ca': { type: 'string' },
  'engine-auth': { type: 'string' },
  'proofread-url': { type: 'string' },
  'proofread-auth': { type: 'string' },
  'proofread-model': { type: 'string' },
  vad: { type: 'string' },
  'vad-model': { type: 'string' },
  search: { type: 'string' },
  workers: { type: 'string' },
  script: { type: 'string' },
  'concurrency-limit': { type: 'string' },
  'rate-limit': { type: 'string' },
  'rate-window': { type: 'string' },
  'per-key-limit': { type: 'string' },
  'retention-days': { type: 'string' },
  database: { type: 'string' },
  redis: { type: 'string' },
  'instance-id': { type: 'string' },
  'trust-proxy': { type: 'string' },
  'metrics-port': { type: 'string' },
  'metrics-host': { type: 'string' },
  'no-dashboard': { type: 'boolean' },
  ...SSO_OPTIONS,
  help: { type: 'boolean', short: 'h' },
} as const;

export function defaultInstanceId(): string {
  return `${
    os
      .hostname()
      .replace(/[^A-Za-z0-9._-]/g, '-')
      .slice(0, 48) || 'host'
  }-${process.pid}`;
}

export function parseArgs(argv: string[], env: NodeJS.ProcessEnv = {}): CliOptions {
  const { values: v } = parseCommandLine(argv, OPTIONS);
  const o: CliOptions = {
    host: v.host === undefined ? DEFAULT_HOST : nonEmpty('--host', v.host),
    port: v.port === undefined ? DEFAULT_PORT : wholeNumber('--port', v.port, 0, 65535),
    dataDir: v['data-dir'] === undefined ? './.dictee-data' : nonEmpty('--data-dir', v['data-dir']),
    engine: 'simulated',
    vad: 'energy',
    search: 'accurate',
    concurrencyLimit: v['concurrency-limit'] === undefined ? 10 : wholeNumber('--concurrency-limit', v['concurrency-limit'], 1, 100000),
    rateLimit: v['rate-limit'] === undefined ? 120 : wholeNumber('--rate-limit', v['rate-limit'], 1, 10000000),
    rateWindowS: v['rate-window'] === undefined ? 60 : wholeNumber('--rate-window', v['rate-window'], 1, 86400),
    retentionDays: v['retention-days'] === undefined ? 30 : wholeNumber('--retention-days', v['retention-days'], 1, 3650),
    instanceId: v['instance-id'] === undefined ? defaultInstanceId() : nonEmpty('--instance-id', v['instance-id']),
    metricsHost: DEFAULT_HOST,
    dashboard: v['no-dashboard'] !== true && !['off', 'false', '0', 'no'].includes((env.DICTEE_DASHBOARD ?? '').toLowerCase()),
    signIn: parseSsoOptions(v),
    help: v.help === true,
  };
  Object.assign(o, metricsListener(v['metrics-port'], v['metrics-host'], env));
  if (o.metricsPort && o.metricsPort === o.port) throw new UsageError('--metrics-port must differ from --port');
  if (!/^[A-Za-z0-9._-]{1,64}$/.test(o.instanceId)) throw new UsageError('--instance-id takes 1 to 64 letters, digits, ".", "_" or "-"');
  const database = v.database ?? (env.DICTEE_DATABASE_URL || undefined);
  const redis = v.redis ?? (env.DICTEE_REDIS_URL || undefined);
  if (database !== undefined) o.database = database;
  if (redis !== undefined) o.redis = redis;
  const trustProxy = v['trust-proxy'] ?? (env.DICTEE_TRUST_PROXY || undefined);
  if (trustProxy !== undefined) o.trustProxy = checkedTrustProxy(trustProxy);
  if (v.engine !== undefined) {
    if (!(ENGINE_NAMES as readonly string[]).includes(v.engine)) {
      throw new UsageError(`unknown engine ${JSON.stringify(v.engine)}; choose one of ${ENGINE_NAMES.join(', ')}`);
    }
    o.engine = v.engine as EngineName;
  }
  if (v.vad !== undefined) {
    if (!(VAD_NAMES as readonly string[]).includes(v.vad))
      throw new UsageError(`unknown --vad ${JSON.stringify(v.vad)}; choose one of ${VAD_NAMES.join(', ')}`);
    o.vad = v.vad as VadName;
  }
  if (v['vad-model'] !== undefined) o.vadModel = nonEmpty('--vad-model', v['vad-model']);
  if (o.vadModel && o.vad !== 'silero') throw new UsageError('--vad-model is for --vad silero');
  if (v.model !== undefined) o.model = nonEmpty('--model', v.model);
  if (v['proofread-model'] !== undefined) o.proofreadModel = nonEmpty('--proofread-model', v['proofread-model']);
  if (v.workers !== undefined) o.workers = wholeNumber('--workers', v.workers, 1, 256);
  if (v.script !== undefined) o.script = v.script;
  if (o.engine === 'sherpa-onnx' && !o.model)
    throw new UsageError('--engine sherpa-onnx needs --model NAME|DIR (npm run models -- list shows the models)');
  if (o.engine !== 'sherpa-onnx' && o.proofreadModel) throw new UsageError('--proofread-model is for the sherpa-onnx engine');
  if (o.engine === 'simulated' && o.model) throw new UsageError('--model is for the pocketsphinx and sherpa-onnx engines');
  if (o.engine !== 'simulated' && o.script) throw new UsageError('--script is for the simulated engine');
  // The variable is read for pocketsphinx only: other engines ignore it (a flag given to them is refused below).
  const search = v.search ?? (o.engine === 'pocketsphinx' ? env.DICTEE_SEARCH || undefined : undefined);
  if (search !== undefined) {
    const from = v.search !== undefined ? '--search' : 'DICTEE_SEARCH';
    if (!(SEARCH_EFFORTS as readonly string[]).includes(search))
      throw new UsageError(`unknown ${from} ${JSON.stringify(search)}; choose one of ${SEARCH_EFFORTS.join(', ')}`);
    if (v.search !== undefined && o.engine !== 'pocketsphinx') throw new UsageError('--search is for the pocketsphinx engine');
    o.search = search as SearchEffort;
  }
  const remote = o.engine === 'realtime' || o.engine === 'vosk';
  if (v['engine-url'] !== undefined) o.engineUrl = nonEmpty('--engine-url', v['engine-url']);
  if (v['engine-model'] !== undefined) o.engineModel = nonEmpty('--engine-model', v['engine-model']);
  if (v['engine-ca'] !== undefined) o.engineCa = nonEmpty('--engine-ca', v['engine-ca']);
  if (v['proofread-url'] !== undefined) o.proofreadUrl = nonEmpty('--proofread-url', v['proofread-url']);
  if (v['engine-auth'] !== undefined) o.engineAuth = authScheme('--engine-auth', v['engine-auth']);
  if (v['proofread-auth'] !== undefined) o.proofreadAuth = authScheme('--proofread-auth', v['proofread-auth']);
  if (o.proofreadAuth && !o.proofreadUrl) throw new UsageError('--proofread-auth goes with --proofread-url');
  if (remote && !o.engineUrl) throw new UsageError(`--engine ${o.engine} needs --engine-url`);
  if (remote && o.model)
    throw new UsageError('--model is for the pocketsphinx and sherpa-onnx engines (a remote engine takes --engine-model)');
  if (!remote && (o.engineUrl || o.engineModel || o.engineCa || o.engineAuth || o.proofreadUrl)) {
    throw new UsageError(
      '--engine-url, --engine-model, --engine-ca, --engine-auth and --proofread-url are for the realtime and vosk engines',
    );
  }
  if (o.engine === 'vosk' && o.engineModel)
    throw new UsageError('--engine-model is for the realtime engine (a Vosk server serves one model)');
  if (v['per-key-limit'] !== undefined) o.perKeyLimit = wholeNumber('--per-key-limit', v['per-key-limit'], 1, 100000);
  return o;
}

/** `--metrics-port` and `--metrics-host`, or their variables (the flag wins); the host only with a port. */
function metricsListener(
  portFlag: string | undefined,
  hostFlag: string | undefined,
  env: NodeJS.ProcessEnv,
): Pick<CliOptions, 'metricsPort' | 'metricsHost'> {
  const port =
    portFlag !== undefined
      ? { name: '--metrics-port', v: portFlag }
      : env.DICTEE_METRICS_PORT
        ? { name: 'DICTEE_METRICS_PORT', v: env.DICTEE_METRICS_PORT }
        : undefined;
  const host =
    hostFlag !== undefined
      ? { name: '--metrics-host', v: hostFlag }
      : env.DICTEE_METRICS_HOST
        ? { name: 'DICTEE_METRICS_HOST', v: env.DICTEE_METRICS_HOST }
        : undefined;
  if (host && !port) throw new UsageError(`${host.name} goes with --metrics-port (or DICTEE_METRICS_PORT)`);
  return {
    metricsHost: host ? nonEmpty(host.name, host.v) : DEFAULT_HOST,
    ...(port ? { metricsPort: wholeNumber(port.name, port.v, 0, 65535) } : {}),
  };
}

/** Timings overridable by (undocumented in --help, documented in docs/server.md) env vars, for tests. */
export function timingFromEnv(env: NodeJS.ProcessEnv): Timing {
  const t = { ...DEFAULT_TIMING };
  const map: Record<string, keyof Timing> = {
    DICTEE_CONFIGURE_TIMEOUT_MS: 'configureTimeoutMs',
    DICTEE_PING_INTERVAL_MS: 'pingIntervalMs',
    DICTEE_PONG_TIMEOUT_MS: 'pongTimeoutMs',
    DICTEE_STALE_SOCKET_MS: 'staleSocketMs',
    DICTEE_STOPPED_TTL_MS: 'stoppedTtlMs',
    DICTEE_RESUME_TTL_MS: 'resumeTtlMs',
    DICTEE_INIT_ADOPT_MS: 'initAdoptMs',
    DICTEE_IDLE_TIMEOUT_MS: 'idleTimeoutMs',
    DICTEE_HEADERS_TIMEOUT_MS: 'headersTimeoutMs',
    DICTEE_MAX_UNSENT_BYTES: 'maxUnsentBytes',
    DICTEE_END_FLUSH_MS: 'endFlushMs',
    DICTEE_KEY_RECHECK_MS: 'keyRecheckMs',
  };
  for (const [name, field] of Object.entries(map)) {
    const v = env[name];
    if (v === undefined || v === '') continue;
    if (!/^\d+$/.test(v) || Number(v) < 1)
      throw new UsageError(`${name} must be a positive whole number${field === 'maxUnsentBytes' ? ' of bytes' : ' of milliseconds'}`);
    t[field] = Number(v);
  }
  return t;
}

/** `--engine-auth` / `--proofread-auth`: one of {@link AUTH_SCHEMES}. */
function authScheme(flag: string, v: string): AuthScheme {
  if (!(AUTH_SCHEMES as readonly string[]).includes(v)) throw new UsageError(`${flag} must be one of ${AUTH_SCHEMES.join(', ')}`);
  return v as AuthScheme;
}

/** The remote engines' fault bounds shortened by the environment (tests; docs/server.md). */
export function remoteBoundsFromEnv(env: NodeJS.ProcessEnv): Partial<RemoteBounds> {
  const out: Partial<RemoteBounds> = {};
  const map: Record<string, keyof RemoteBounds> = {
    DICTEE_ENGINE_CONNECT_TIMEOUT_MS: 'connectTimeoutMs',
    DICTEE_ENGINE_RECONNECT_MS: 'reconnectMs',
    DICTEE_ENGINE_STALL_MS: 'stallMs',
    DICTEE_ENGINE_MAX_LAG_MS: 'maxLagMs',
  };
  for (const [name, field] of Object.entries(map)) {
    const v = env[name];
    if (v === undefined || v === '') continue;
    if (!/^\d+$/.test(v) || Number(v) < 1) throw new UsageError(`${name} must be a positive whole number of milliseconds`);
    out[field] = Number(v);
  }
  return out;
}

/** A `--trust-proxy` value that compiles, or a UsageError saying what is accepted. */
function checkedTrustProxy(v: string): string {
  try {
    compileTrustProxy(v);
  } catch (e) {
    if (e instanceof TrustProxyError) throw new UsageError(e.message);
    throw e;
  }
  return v.trim();
}

/** `DICTEE_AUTH_FAILURE_LIMIT`: failed master-key (and, apart, API-key) attempts per client address per minute (default 10). */
export function authFailureLimitFromEnv(env: NodeJS.ProcessEnv): number {
  const v = env.DICTEE_AUTH_FAILURE_LIMIT;
  if (v === undefined || v === '') return MASTER_KEY_FAILURES;
  if (!/^\d+$/.test(v) || Number(v) < 1) throw new UsageError('DICTEE_AUTH_FAILURE_LIMIT must be a positive whole number of attempts');
  return Number(v);
}

/** `DICTEE_SLOT_LEASE_MS`: the lease of a concurrency slot in Redis (default 3000; the slots of a dead instance are free after it). */
export function slotLeaseFromEnv(env: NodeJS.ProcessEnv): number {
  const v = env.DICTEE_SLOT_LEASE_MS;
  if (v === undefined || v === '') return 3000;
  if (!/^\d+$/.test(v) || Number(v) < 300)
    throw new UsageError('DICTEE_SLOT_LEASE_MS must be a whole number of milliseconds, at least 300');
  return Number(v);
}

/**
 * `mkdir -p` one level at a time (mode 0700). Node's recursive mkdirSync can spin forever on some
 * virtual file systems (e.g. a path under /proc); this fails with the real error instead.
 */
export function makeDirs(dir: string): void {
  const missing: string[] = [];
  let d = path.resolve(dir);
  while (!existsSync(d)) {
    missing.unshift(d);
    const parent = path.dirname(d);
    if (parent === d) break;
    d = parent;
  }
  for (const m of missing) mkdirSync(m, { mode: 0o700 });
}
