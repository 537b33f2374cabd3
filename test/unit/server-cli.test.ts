import assert from 'node:assert/strict';
import { mkdtempSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { defaultInstanceId, makeDirs, parseArgs, slotLeaseFromEnv, timingFromEnv, UsageError } from '../../src/server/commandLine';
import { DEFAULT_TIMING } from '../../src/server/app';

describe('server command line', () => {
  it('has the documented defaults', () => {
    assert.deepEqual(parseArgs([]), {
      host: '127.0.0.1',
      port: 8787,
      dataDir: './.dictee-data',
      engine: 'simulated',
      vad: 'energy',
      search: 'accurate',
      concurrencyLimit: 10,
      rateLimit: 120,
      rateWindowS: 60,
      retentionDays: 30,
      instanceId: defaultInstanceId(),
      metricsHost: '127.0.0.1',
      dashboard: true,
      signIn: {},
      help: false,
    });
    assert.match(defaultInstanceId(), new RegExp(`^[A-Za-z0-9._-]+-${process.pid}$`));
  });

  it('--vad energy|silero (default energy); --vad-model FILE only with silero', () => {
    assert.equal(parseArgs(['--vad', 'silero']).vad, 'silero');
    assert.equal(parseArgs(['--vad', 'energy', '--engine', 'pocketsphinx']).vad, 'energy');
    assert.equal(parseArgs(['--vad', 'silero', '--vad-model', '/m/silero.onnx']).vadModel, '/m/silero.onnx');
    assert.throws(() => parseArgs(['--vad', 'neural']), /unknown --vad "neural"; choose one of energy, silero/);
    assert.throws(() => parseArgs(['--vad-model', '/m/silero.onnx']), /--vad-model is for --vad silero/);
  });

  it('--search accurate|fast (default accurate) for pocketsphinx, or DICTEE_SEARCH (the flag wins; other engines ignore the variable)', () => {
    assert.equal(parseArgs(['--engine', 'pocketsphinx']).search, 'accurate');
    assert.equal(parseArgs(['--engine', 'pocketsphinx', '--search', 'fast']).search, 'fast');
    assert.equal(parseArgs(['--engine', 'pocketsphinx'], { DICTEE_SEARCH: 'fast' }).search, 'fast');
    assert.equal(parseArgs(['--engine', 'pocketsphinx', '--search', 'accurate'], { DICTEE_SEARCH: 'fast' }).search, 'accurate');
    assert.equal(parseArgs([], { DICTEE_SEARCH: 'fast' }).search, 'accurate');
    assert.equal(parseArgs([], { DICTEE_SEARCH: 'anything' }).engine, 'simulated');
    assert.throws(
      () => parseArgs(['--engine', 'pocketsphinx', '--search', 'quick']),
      /unknown --search "quick"; choose one of accurate, fast/,
    );
    assert.throws(
      () => parseArgs(['--engine', 'pocketsphinx'], { DICTEE_SEARCH: 'Fast' }),
      /unknown DICTEE_SEARCH "Fast"; choose one of accurate, fast/,
    );
    assert.throws(() => parseArgs(['--search', 'fast']), /--search is for the pocketsphinx engine/);
  });

  it('--database and --redis, or DICTEE_DATABASE_URL and DICTEE_REDIS_URL (the flag wins); --instance-id', () => {
    const env = { DICTEE_DATABASE_URL: 'postgres://env/db', DICTEE_REDIS_URL: 'redis://env:6379' };
    const fromEnv = parseArgs([], env);
    assert.equal(fromEnv.database, 'postgres://env/db');
    assert.equal(fromEnv.redis, 'redis://env:6379');
    const flags = parseArgs(['--database', 'postgres://flag/db', '--redis=redis://flag', '--instance-id', 'dictee-2'], env);
    assert.equal(flags.database, 'postgres://flag/db');
    assert.equal(flags.redis, 'redis://flag');
    assert.equal(flags.instanceId, 'dictee-2');
    const none = parseArgs([], { DICTEE_DATABASE_URL: '', DICTEE_REDIS_URL: '' });
    assert.equal(none.database, undefined, 'an empty variable is no database');
    assert.equal(none.redis, undefined);
    assert.throws(
      () => parseArgs(['--instance-id', 'a b']),
      (e: unknown) => e instanceof UsageError && /--instance-id takes 1 to 64 letters/.test(e.message),
    );
    assert.throws(
      () => parseArgs(['--database']),
      (e: unknown) => e instanceof UsageError && /--database needs a value/.test(e.message),
    );
  });

  it('--metrics-port and --metrics-host, or DICTEE_METRICS_PORT and DICTEE_METRICS_HOST (the flag wins); no listener by default', () => {
    assert.equal(parseArgs([]).metricsPort, undefined);
    assert.deepEqual(pick(parseArgs(['--metrics-port', '9787'])), { metricsPort: 9787, metricsHost: '127.0.0.1' });
    assert.deepEqual(pick(parseArgs(['--metrics-port=0', '--metrics-host', '10.0.0.11'])), { metricsPort: 0, metricsHost: '10.0.0.11' });
    const env = { DICTEE_METRICS_PORT: '9788', DICTEE_METRICS_HOST: '0.0.0.0' };
    assert.deepEqual(pick(parseArgs([], env)), { metricsPort: 9788, metricsHost: '0.0.0.0' });
    assert.deepEqual(pick(parseArgs(['--metrics-port', '9789', '--metrics-host', '::1'], env)), { metricsPort: 9789, metricsHost: '::1' });
    assert.throws(() => parseArgs(['--metrics-host', '0.0.0.0']), /--metrics-host goes with --metrics-port/);
    assert.throws(() => parseArgs([], { DICTEE_METRICS_HOST: '0.0.0.0' }), /DICTEE_METRICS_HOST goes with --metrics-port/);
    assert.throws(() => parseArgs(['--metrics-port', 'x']), /--metrics-port needs a whole number, got "x"/);
    assert.throws(() => parseArgs([], { DICTEE_METRICS_PORT: '70000' }), /DICTEE_METRICS_PORT must be between 0 and 65535, got 70000/);
    assert.throws(() => parseArgs(['--port', '9000', '--metrics-port', '9000']), /--metrics-port must differ from --port/);
    assert.throws(() => parseArgs(['--metrics-port', '9000', '--metrics-host', '']), /--metrics-host needs a value/);
  });

  it('DICTEE_SLOT_LEASE_MS: 3000 by default, at least 300', () => {
    assert.equal(slotLeaseFromEnv({}), 3000);
    assert.equal(slotLeaseFromEnv({ DICTEE_SLOT_LEASE_MS: '1500' }), 1500);
    assert.throws(() => slotLeaseFromEnv({ DICTEE_SLOT_LEASE_MS: '100' }), UsageError);
    assert.throws(() => slotLeaseFromEnv({ DICTEE_SLOT_LEASE_MS: 'soon' }), UsageError);
  });

  it('reads every flag, in both --flag v and --flag=v forms', () => {
    const o = parseArgs([
      '--host',
      '0.0.0.0',
      '--port=0',
      '--data-dir',
      '/tmp/x',
      '--engine',
      'simulated',
      '--script',
      's.txt',
      '--concurrency-limit',
      '3',
      '--rate-limit=5',
      '--rate-window',
      '2',
    ]);
    assert.equal(o.host, '0.0.0.0');
    assert.equal(o.port, 0);
    assert.equal(o.dataDir, '/tmp/x');
    assert.equal(o.script, 's.txt');
    assert.equal(o.concurrencyLimit, 3);
    assert.equal(o.rateLimit, 5);
    assert.equal(o.rateWindowS, 2);
    assert.equal(parseArgs(['--help']).help, true);
    const ps = parseArgs(['--engine', 'pocketsphinx', '--model=/m', '--workers', '3']);
    assert.equal(ps.engine, 'pocketsphinx');
    assert.equal(ps.model, '/m');
    assert.equal(ps.workers, 3);
    assert.equal(parseArgs(['--engine', 'sherpa-onnx', '--model', '/m']).engine, 'sherpa-onnx');
    const sherpa = parseArgs(['--engine', 'sherpa-onnx', '--model', 'nemotron', '--proofread-model', 'parakeet']);
    assert.deepEqual([sherpa.model, sherpa.proofreadModel], ['nemotron', 'parakeet']);
    const h = parseArgs(['--per-key-limit', '2', '--retention-days=7']);
    assert.equal(h.perKeyLimit, 2);
    assert.equal(h.retentionDays, 7);
  });

  it('rejects bad flags with a clear message', () => {
    const bad: Array<[string[], RegExp]> = [
      [['--port', 'abc'], /--port needs a whole number/],
      [['--port', '70000'], /--port must be between 0 and 65535/],
      [['--port'], /--port needs a value/],
      [['--engine', 'whisper'], /unknown engine "whisper"; choose one of simulated, pocketsphinx, sherpa-onnx/],
      [['--engine', 'sherpa-onnx'], /--engine sherpa-onnx needs --model NAME\|DIR \(npm run models -- list shows the models\)/],
      [['--engine', 'pocketsphinx', '--proofread-model', 'x'], /--proofread-model is for the sherpa-onnx engine/],
      [['--model', '/m'], /--model is for the pocketsphinx and sherpa-onnx engines/],
      [['--engine', 'pocketsphinx', '--script', 's.txt'], /--script is for the simulated engine/],
      [['--workers', '0'], /--workers must be between 1/],
      [['--concurrency-limit', '0'], /--concurrency-limit must be between 1/],
      [['--per-key-limit', '0'], /--per-key-limit must be between 1/],
      [['--retention-days', '0'], /--retention-days must be between 1 and 3650/],
      [['--rate-window=-1'], /--rate-window needs a whole number/],
      [['--rate-window', '-1'], /--rate-window needs a value \(write a value that starts with "-" as --rate-window=-…\)/],
      [['--host='], /--host needs a value/],
      [['--help=yes'], /--help takes no value/],
      [['stray'], /unexpected argument "stray"/],
      [['--verbose'], /unknown option "--verbose"/],
      [['--port', '--host'], /--port needs a value/],
    ];
    for (const [argv, re] of bad)
      assert.throws(
        () => parseArgs(argv),
        (e: unknown) => e instanceof UsageError && re.test(e.message),
        argv.join(' '),
      );
  });

  it('reads timing overrides from the environment', () => {
    assert.deepEqual(timingFromEnv({}), DEFAULT_TIMING);
    const t = timingFromEnv({ DICTEE_CONFIGURE_TIMEOUT_MS: '300', DICTEE_PING_INTERVAL_MS: '100', DICTEE_PONG_TIMEOUT_MS: '400' });
    assert.equal(t.configureTimeoutMs, 300);
    assert.equal(t.pingIntervalMs, 100);
    assert.equal(t.pongTimeoutMs, 400);
    assert.throws(() => timingFromEnv({ DICTEE_PING_INTERVAL_MS: 'soon' }), /DICTEE_PING_INTERVAL_MS/);
  });

  it('creates the data dir (and its parents) with mode 0700, and fails with the real error', () => {
    const base = mkdtempSync(path.join(os.tmpdir(), 'dictee-dirs-'));
    const dir = path.join(base, 'a', 'b');
    makeDirs(dir);
    assert.ok(statSync(dir).isDirectory());
    assert.equal(statSync(dir).mode & 0o777, 0o700);
    makeDirs(dir); // exists: fine
    writeFileSync(path.join(base, 'file'), 'x');
    assert.throws(() => makeDirs(path.join(base, 'file', 'sub')), /ENOTDIR|EEXIST/);
    assert.throws(() => makeDirs('/proc/dictee-nope/x'), /ENOENT/);
  });
});

function pick(o: { metricsPort?: number; metricsHost: string }): { metricsPort?: number; metricsHost: string } {
  return { metricsPort: o.metricsPort, metricsHost: o.metricsHost };
}
