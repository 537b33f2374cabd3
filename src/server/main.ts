/**
 * `node dist/server.js [--host H] [--port P] [--data-dir DIR] [--engine NAME] [--model NAME|DIR] [--proofread-model NAME|DIR]
 *  [--script FILE] [--workers N] [--concurrency-limit N] [--rate-limit N] [--rate-window S] …
 *  [--database URL] [--redis URL] [--instance-id ID]`, or a subcommand: `node dist/server.js backup FILE …`
 *  (subcommands.ts)
 *
 * stdout carries only the `listening on http://HOST:PORT` line and, at a first start without
 * DICTEE_MASTER_KEY, the one-time master key notice. Logs are JSON lines on stderr.
 */
import { readFileSync } from 'node:fs';
import type http from 'node:http';
import path from 'node:path';
import { Service, type Timing, bindHttpServer } from './app';
import { bindMetricsServer, closeMetricsServer, metricsUrl } from './http/metricsListener';
import { BackendStartError } from './storage/backend';
import { type Backends, openBackends } from './storage/backends';
import { openEngine } from './engine/pooled';
import { type Engine, EngineUnavailableError } from './engine/engine';
import type { RemoteBounds } from './engine/remote/remoteEngine';
import { dataDirWarning } from './storage/db';
import { type GivenMasterKey, MasterKeyConflictError } from './storage/masterKey';
import { masterKeyFromEnvironment } from './masterKeySource';
import { runSubcommand } from './subcommands';
import { AuditRetentionError, auditRetentionFromEnv } from './storage/audit';
import { LEVELS, type Level, createLogger, streamWriter } from './log';
import { Lifecycle } from './lifecycle';
import { errorMessage } from '../shared/errors';
import {
  type CliOptions,
  USAGE,
  UsageError,
  makeDirs,
  parseArgs,
  remoteBoundsFromEnv,
  slotLeaseFromEnv,
  timingFromEnv,
  authFailureLimitFromEnv,
} from './commandLine';
import { type SignInSecrets, dashboardSignIn, readSignInSecrets } from './dashboard/signInSetup';

async function main(): Promise<void> {
  const write = (stream: NodeJS.WriteStream) => (s: string) => void stream.write(s);
  const status = await runSubcommand(process.argv.slice(2), process.env, write(process.stdout), write(process.stderr));
  if (status !== undefined) {
    process.exitCode = status;
    return;
  }
  let opts: CliOptions;
  let timing: Timing;
  let slotLeaseMs: number;
  let remoteBounds: Partial<RemoteBounds>;
  let authFailureLimit: number;
  let auditRetentionDays: number;
  let signInSecrets: SignInSecrets;
  try {
    opts = parseArgs(process.argv.slice(2), process.env);
    timing = timingFromEnv(process.env);
    slotLeaseMs = slotLeaseFromEnv(process.env);
    remoteBounds = remoteBoundsFromEnv(process.env);
    authFailureLimit = authFailureLimitFromEnv(process.env);
    auditRetentionDays = auditRetentionFromEnv(process.env);
    signInSecrets = readSignInSecrets(opts.signIn);
  } catch (e) {
    if (e instanceof UsageError) {
      process.stderr.write(`error: ${e.message}\n\n${USAGE}`);
      process.exit(2);
    }
    if (e instanceof AuditRetentionError) {
      process.stderr.write(`error: ${e.message}\n`);
      process.exit(2);
    }
    throw e;
  }
  if (opts.help) {
    process.stdout.write(USAGE);
    return;
  }
  let masterKey: GivenMasterKey | undefined;
  try {
    masterKey = masterKeyFromEnvironment(process.env);
  } catch (e) {
    process.stderr.write(`error: ${errorMessage(e)}\n`);
    process.exit(2);
  }
  const levelEnv = (process.env.DICTEE_LOG_LEVEL ?? 'info') as Level;
  const log = createLogger({ level: LEVELS.includes(levelEnv) ? levelEnv : 'info' });
  // A closed stdout (its reader gone) is said once on stderr; the service goes on.
  const stdout = streamWriter(process.stdout, (e) => log.warn('stdout is closed: its lines are dropped', { error: errorMessage(e) }));
  let script: string | undefined;
  if (opts.script) {
    try {
      script = readFileSync(opts.script, 'utf8');
    } catch (e) {
      process.stderr.write(`error: cannot read --script ${opts.script}: ${errorMessage(e)}\n`);
      process.exit(2);
    }
    if (script.trim() === '') {
      process.stderr.write(`error: --script ${opts.script} is empty\n`);
      process.exit(2);
    }
  }
  const dataDir = path.resolve(opts.dataDir);
  if (!opts.database) {
    try {
      makeDirs(dataDir);
    } catch (e) {
      process.stderr.write(`error: cannot create the data dir ${dataDir}: ${errorMessage(e)}\n`);
      process.exit(1);
    }
  }
  let engineCa: Buffer | undefined;
  if (opts.engineCa) {
    try {
      engineCa = readFileSync(opts.engineCa);
    } catch (e) {
      process.stderr.write(`error: cannot read --engine-ca ${opts.engineCa}: ${errorMessage(e)}\n`);
      process.exit(2);
    }
  }
  // The credential comes from the environment only, and goes nowhere but the upstream's header.
  const engineKey = process.env.DICTEE_ENGINE_API_KEY || undefined;
  const remote = opts.engineUrl
    ? {
        url: opts.engineUrl,
        ...(opts.engineModel ? { model: opts.engineModel } : {}),
        ...(engineKey ? { apiKey: engineKey } : {}),
        ...(opts.engineAuth ? { auth: opts.engineAuth } : {}),
        ...(engineCa ? { ca: engineCa } : {}),
        ...(opts.proofreadUrl ? { proofreadUrl: opts.proofreadUrl } : {}),
        ...(opts.proofreadAuth ? { proofreadAuth: opts.proofreadAuth } : {}),
        ...(process.env.DICTEE_PROOFREAD_MODEL ? { proofreadModel: process.env.DICTEE_PROOFREAD_MODEL } : {}),
        bounds: remoteBounds,
      }
    : undefined;
  let engine: Engine;
  try {
    engine = await openEngine({
      engine: opts.engine,
      vad: opts.vad,
      ...(opts.vadModel ? { vadModel: opts.vadModel } : {}),
      ...(opts.model ? { model: opts.model } : {}),
      ...(opts.proofreadModel ? { proofreadModel: opts.proofreadModel } : {}),
      ...(script ? { script } : {}),
      ...(opts.workers ? { workers: opts.workers } : {}),
      ...(remote ? { remote } : {}),
      search: opts.search,
      log,
    });
  } catch (e) {
    const why = e instanceof EngineUnavailableError ? e.message : errorMessage(e);
    process.stderr.write(`error: the ${opts.engine} engine cannot start: ${why}\n`);
    process.exit(1);
  }
  // Every failure from here on exits 1, even one that ends the process by leaving nothing to wait for.
  process.exitCode = 1;
  // Listen first: a port already in use fails here, before a master key is made or a store is touched.
  let server: http.Server;
  try {
    server = await bindHttpServer(opts.host, opts.port, timing);
  } catch (e) {
    process.stderr.write(`error: cannot listen on ${opts.host}:${opts.port}: ${errorMessage(e)}\n`);
    await engine.close?.();
    process.exit(1);
  }
  let metricsServer: http.Server | undefined;
  if (opts.metricsPort !== undefined) {
    try {
      metricsServer = await bindMetricsServer(opts.metricsHost, opts.metricsPort);
    } catch (e) {
      process.stderr.write(`error: cannot listen for --metrics-port on ${opts.metricsHost}:${opts.metricsPort}: ${errorMessage(e)}\n`);
      server.close();
      await engine.close?.();
      process.exit(1);
    }
  }
  const dirWarning = opts.database ? undefined : dataDirWarning(dataDir);
  if (dirWarning) log.warn(dirWarning);
  let backends: Backends;
  try {
    backends = await openBackends({
      dataDir,
      databaseUrl: opts.database,
      redisUrl: opts.redis,
      instanceId: opts.instanceId,
      masterKey,
      announceMasterKey: (key) => stdout(`master key (shown once): ${key}\n`),
      concurrencyLimit: opts.concurrencyLimit,
      rateLimit: opts.rateLimit,
      rateWindowMs: opts.rateWindowS * 1000,
      slotLeaseMs,
      authFailureLimit,
      auditRetentionDays,
      log,
    });
  } catch (e) {
    server.close();
    if (metricsServer) await closeMetricsServer(metricsServer);
    await engine.close?.();
    if (!(e instanceof BackendStartError) && !(e instanceof MasterKeyConflictError)) throw e;
    process.stderr.write(`error: ${e.message}\n`);
    process.exit(e instanceof MasterKeyConflictError ? 2 : 1);
  }
  const service = new Service({
    backends,
    engine,
    log,
    timing,
    perKeyLimit: opts.perKeyLimit,
    retentionDays: opts.retentionDays,
    server,
    trustProxy: opts.trustProxy,
    dashboard: opts.dashboard,
    dashboardSignIn: dashboardSignIn(opts.signIn, signInSecrets, log, backends),
    ...(metricsServer ? { metricsServer } : {}),
  });
  const port = await service.listen(opts.host, opts.port);
  process.exitCode = 0;
  if (backends.storeKind === 'postgres' && backends.limitsKind === 'in-process') {
    log.warn(
      'limits are per instance: PostgreSQL is shared but without --redis the rate limit, the concurrency slots and the revocation of live sessions count in this instance only',
    );
  }
  log.info('service started', {
    host: opts.host,
    port,
    instance_id: opts.instanceId,
    store: backends.storeKind,
    limits: backends.limitsKind,
    data_dir: backends.storeKind === 'sqlite' ? dataDir : undefined,
    migrations_applied: backends.migrationsApplied.length ? backends.migrationsApplied : undefined,
    engine: engine.name,
    languages: engine.languages,
    languages_refused: engine.refused?.length ? engine.refused.map((r) => `${r.language}: ${r.reason}`) : undefined,
    vad: opts.vad,
    engine_note: engine.name === 'simulated' ? 'the simulated engine produces text without recognising speech' : undefined,
    script: engine.name === 'simulated' ? (opts.script ? 'custom' : 'built-in') : undefined,
    concurrency_limit: opts.concurrencyLimit,
    rate_limit: opts.rateLimit,
    rate_window_s: opts.rateWindowS,
    per_key_limit: opts.perKeyLimit,
    retention_days: opts.retentionDays,
    trust_proxy: opts.trustProxy,
    metrics: metricsServer ? metricsUrl(metricsServer) : undefined,
  });
  if (engine.name === 'simulated') {
    // The default engine: a deployment that forgot --engine would answer radiologists with a script.
    log.warn('the simulated engine recognises no speech: sessions get the words of a script, not what was said', {
      choose: '--engine pocketsphinx, sherpa-onnx, realtime or vosk (docs/engines.md)',
    });
  }
  if (metricsServer && !isLoopback(opts.metricsHost)) {
    log.warn('the metrics listener takes no key and listens beyond loopback: protect it by the network or a proxy', {
      metrics: metricsUrl(metricsServer),
    });
  }
  // Signals drain and exit 0; an uncaught exception drains within a deadline and exits 1 (lifecycle.ts).
  new Lifecycle({ log, stop: () => service.shutdown().then(() => engine.close?.()), exit: (code) => process.exit(code) }).install(process);
  // Only now, with the signal handlers in place: whoever waits for this line may signal us at once.
  const hostForUrl = opts.host.includes(':') ? `[${opts.host}]` : opts.host;
  stdout(`listening on http://${hostForUrl}:${port}\n`);
}

/** Whether a host given on the command line is this machine's loopback only. */
function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\./.test(host);
}

if (require.main === module) {
  main().catch((e: unknown) => {
    process.stderr.write(`fatal: ${e instanceof Error && e.stack ? e.stack : errorMessage(e)}\n`);
    process.exit(1);
  });
}
