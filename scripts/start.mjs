#!/usr/bin/env node
// `npm start`: Dictée running here, end to end, for someone who just cloned the repository.
//
// 1. installs what is missing: `npm ci` (no node_modules), code-server (`npm run e2e:setup -- --code-server`),
//    then builds (`npm run build`) and packages the extension (`npm run package`) when what goes into the
//    .vsix changed since it was last packaged (vsix-cache.mjs);
// 2. starts the Live Transcription Service on 127.0.0.1:8787 (DICTEE_PORT; a free port if taken) with its data
//    in .dictee-data/npm-start/ (not .dictee-data/, `npm run server`'s default), its address in
//    .dictee-data/dev/service.json while it runs (where `npm run client` finds it), and starts it again
//    whenever it exits (code-server and the microphone keep running, so the extension's reconnection can be seen). The engine: pocketsphinx (real English recognition) when its
//    Debian packages are installed, else the simulated engine with a script that matches the sample report;
//    `npm start -- --engine NAME [--model DIR]` chooses; the master key comes from DICTEE_MASTER_KEY or is generated once and
//    kept in .dictee-data/dev/master-key (mode 600); a development key (svc_test_…) is created through the
//    HTTP API once and kept in .dictee-data/dev/api-key (mode 600), checked and reused on later starts;
// 3. starts code-server on 127.0.0.1:8080 (DICTEE_CODE_PORT; a free port if taken) with the fresh .vsix
//    installed, dictee.serverUrl pointing at the service and a sample report.md in a workspace outside the
//    clone (so that VS Code offers no parent git repository), one per clone and kept between its runs
//    (start-workspace.mjs), and prints the URL to open.
//
// It prints one line per step; what the steps print (npm, esbuild, vsce, code-server, the service) goes to
// .dictee-data/start.log, written again at each start; when a step fails, its own error line comes first
// (start-errors.mjs), then the last lines of what it printed.
// The dictation language written into code-server's settings is the one the engine serves (GET /healthz:
// en with pocketsphinx; VS Code's display language when the engine serves it), not the setting's default
// `auto` (start-language.mjs). Under pocketsphinx the French model is fetched when absent and the `lm build`
// command said when there is no French language model (start-models.mjs).
//
// No microphone is needed: when no sound server answers (or DICTEE_START_VIRTUAL_MIC=1), a private PulseAudio
// daemon with a virtual microphone is started for code-server's extension host, and the printed notes say
// how to play speech into it. Ctrl+C stops everything.
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  appendFileSync,
  chmodSync,
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { failureReport } from './start-errors.mjs';
import { startLanguage } from './start-language.mjs';
import {
  chooseEngineThenFrench,
  displayLanguage,
  displayLanguageWhy,
  neuralHint,
  prepareFrench,
  servedNote,
  vscodeLocale,
} from './start-models.mjs';
import { sampleReport, startWorkspace } from './start-workspace.mjs';
import { recordVsix, vsixUpToDate } from './vsix-cache.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dataDir = path.join(root, '.dictee-data');
const devDir = path.join(dataDir, 'dev');
// The service's own store (keys, sessions): not .dictee-data/ itself, which `npm run server` uses by default.
const serviceDataDir = path.join(dataDir, 'npm-start');
// The address of the running service, for `npm run client` (src/client/serverChoice.ts); removed at exit.
const serviceFile = path.join(devDir, 'service.json');
const startDir = path.join(root, '.cache', 'start');
/** Everything the steps print, written again at each start. */
const logFile = path.join(dataDir, 'start.log');
const logName = path.relative(root, logFile);
const codeServerEntry = path.join(root, '.cache', 'code-server', 'node_modules', 'code-server', 'out', 'node', 'entry.js');
const children = [];

/** A real recorded voice (Debian's pocketsphinx-testdata) to play into the virtual microphone. */
const RECORDED_SPEECH = '/usr/share/pocketsphinx/test/data/librivox/sense_and_sensibility_01_austen_64kb-0930.wav';

/** Whether pocketsphinx can run here: its Debian library and English model (what `--engine pocketsphinx` needs). */
function pocketsphinxInstalled() {
  const lib = spawnSync('sh', ['-c', 'ldconfig -p | grep -q "libpocketsphinx.so.3 "']).status === 0;
  return lib && existsSync('/usr/share/pocketsphinx/model/en-us/en-us');
}

/**
 * `npm start -- --engine NAME [--model NAME|DIR] [--proofread-model NAME|DIR]`: the service's engine. By
 * default the best one installed: a neural model (sherpa-onnx) installed by `npm run models`, else
 * pocketsphinx, else the simulated engine.
 */
function engineArgs(argv) {
  const out = { engine: undefined, model: undefined, 'proofread-model': undefined };
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i].split(/=(.*)/s);
    if (flag !== '--engine' && flag !== '--model' && flag !== '--proofread-model') {
      console.error(`[dictee] unknown option ${argv[i]}: npm start takes --engine NAME, --model NAME|DIR and --proofread-model NAME|DIR`);
      process.exit(2);
    }
    const value = inline ?? argv[++i];
    if (!value) {
      console.error(`[dictee] ${flag} needs a value`);
      process.exit(2);
    }
    out[flag.slice(2)] = value;
  }
  return out;
}
const chosen = engineArgs(process.argv.slice(2));

/** The catalogue's models as `npm run models -- list --json` tells them (after npm ci: it runs through tsx). */
function catalogueModels() {
  const r = spawnSync(process.execPath, ['--import', 'tsx', path.join(root, 'src', 'models', 'cli.ts'), 'list', '--json'], {
    cwd: root,
    encoding: 'utf8',
  });
  try {
    return r.status === 0 ? JSON.parse(r.stdout).models : [];
  } catch {
    return [];
  }
}

/** What each engine does, as the printed notes say it (lines of at most about 100 characters). */
const ENGINE_NOTES = {
  simulated:
    "simulated: it writes the sample report's findings, one word per 300 ms of speech,\n              without recognising speech (each dictation starts the script again)",
  pocketsphinx:
    'pocketsphinx: speech recognition on this machine (dictionary words, no punctuation\n              until a sentence is proofread), in the languages whose models are installed',
  'sherpa-onnx': 'sherpa-onnx: the neural model given with --model',
};

/** The Engine lines of the notes: what runs, and how to get French, Spanish and German when no neural model does. */
function engineNote(models, served) {
  if (chosen.engine === 'sherpa-onnx') {
    const m = models.find((x) => x.name === chosen.model);
    return `sherpa-onnx: ${chosen.model}${m ? ` (${m.languages.join(', ')})` : ''}${
      chosen['proofread-model'] ? `,\n              each sentence proofread by ${chosen['proofread-model']}` : ''
    }`;
  }
  const recommended = models.find((m) => m.kind === 'online')?.name;
  const sphinx =
    chosen.engine === 'simulated' ? '\n              (install libpocketsphinx3 pocketsphinx-en-us for real English recognition)' : '';
  return `${ENGINE_NOTES[chosen.engine] ?? chosen.engine}${sphinx}${neuralHint(chosen.engine, recommended, served)}`;
}

/** Appends to the log file (created by openLog; nothing before it). */
function log(text) {
  if (!existsSync(dataDir)) return;
  appendFileSync(logFile, text.endsWith('\n') ? text : `${text}\n`);
}

function openLog() {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  writeFileSync(logFile, `npm start, ${new Date().toISOString()}\n`);
}

/** A step's line left open ("[dictee] building… "), finished by its `done`. */
let openLine = false;

const say = (msg) => {
  if (openLine) process.stdout.write('\n');
  openLine = false;
  console.log(`[dictee] ${msg}`);
  log(`[dictee] ${msg}`);
};

/** Starts a step: prints "[dictee] what… " and returns done(result), which ends the line with the result and the time. */
function step(what) {
  if (openLine) process.stdout.write('\n');
  process.stdout.write(`[dictee] ${what}… `);
  log(`\n[dictee] ${what}`);
  openLine = true;
  const t0 = Date.now();
  return (result = 'done') => {
    const text = `${result} (${((Date.now() - t0) / 1000).toFixed(1)} s)`;
    if (openLine) process.stdout.write(`${text}\n`);
    else console.log(`[dictee] ${what}: ${text}`);
    openLine = false;
    log(`[dictee] ${what}: ${text}`);
  };
}

/** The log from byte `from` on (what one step printed), or all of it. */
function readLog(from = 0) {
  try {
    return readFileSync(logFile).subarray(from).toString('utf8');
  } catch {
    return '';
  }
}

/** A step failed: its own error line first (start-errors.mjs), then the end of its output. */
function fail(what, why, output = readLog()) {
  if (openLine) process.stdout.write('failed\n');
  openLine = false;
  console.error(`\n${failureReport(what, why, output, logName)}`);
  process.exit(1);
}

/** Runs one step to its end, its output into the log file. */
function run(cmd, args, what) {
  const done = step(what);
  log(`$ ${cmd} ${args.join(' ')}`);
  const from = existsSync(logFile) ? statSync(logFile).size : 0;
  const fd = openSync(logFile, 'a');
  const r = spawnSync(cmd, args, { cwd: root, stdio: ['ignore', fd, fd] });
  closeSync(fd);
  if (r.status !== 0) fail(what, r.error ? r.error.message : `exit code ${r.status}`, readLog(from));
  done();
}

function readSecret(file) {
  try {
    return readFileSync(file, 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}

function writeSecret(file, value) {
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  writeFileSync(file, `${value}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
}

function portFree(port) {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}

async function pickPort(wanted, name) {
  if (await portFree(wanted)) return wanted;
  say(`port ${wanted} is taken: ${name} gets a free port instead`);
  return 0;
}

/** Starts a child in its own process group; resolves with the first match of `ready` in its output. */
function startChild(name, cmd, args, env, ready) {
  const child = spawn(cmd, args, { cwd: root, env: { ...process.env, ...env }, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let out = '';
  return new Promise((resolve, reject) => {
    const onData = (d) => {
      out += d.toString();
      if (process.env.DICTEE_START_VERBOSE) process.stderr.write(`[${name}] ${d}`);
      const m = ready.exec(out);
      if (m) {
        child.stdout.off('data', onData);
        child.stderr.off('data', onData);
        // Keep draining the pipes so the child never blocks on a full pipe.
        child.stdout.resume();
        child.stderr.resume();
        resolve({ child, match: m });
      }
    };
    // Everything the child prints goes to the log file, for as long as it runs.
    const toLog = (d) =>
      log(
        d
          .toString()
          .trimEnd()
          .split('\n')
          .map((l) => `[${name}] ${l}`)
          .join('\n'),
      );
    child.stdout.on('data', toLog);
    child.stderr.on('data', toLog);
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('error', (e) => reject(new Error(`${name} could not start: ${e.message}`)));
    child.once('exit', (code) => {
      // What it printed goes with the error: its own error line is shown first (start-errors.mjs).
      const e = new Error(`${name} exited (code ${code}) before it was ready`);
      e.output = out;
      reject(e);
    });
  });
}

function stopAll(signal = 'SIGTERM') {
  for (const c of [...children].reverse()) {
    try {
      process.kill(-c.pid, signal);
    } catch {
      /* gone */
    }
  }
}

/**
 * Stops every child and waits for them (reading their output meanwhile: a service whose output pipe is
 * closed while it drains could not finish), then kills what is left after `timeoutMs`.
 */
async function stopAndWait(timeoutMs = 10_000) {
  const running = (c) => c.exitCode === null && c.signalCode === null;
  const alive = children.filter(running);
  stopAll('SIGTERM');
  let timer;
  await Promise.race([
    Promise.all(alive.map((c) => new Promise((resolve) => (running(c) ? c.once('exit', resolve) : resolve())))),
    new Promise((resolve) => (timer = setTimeout(resolve, timeoutMs))),
  ]);
  clearTimeout(timer);
  const left = alive.filter(running);
  if (left.length) say(`${left.length} process(es) did not stop within ${timeoutMs / 1000} s: killing them`);
  for (const c of left) {
    try {
      process.kill(-c.pid, 'SIGKILL');
    } catch {
      /* gone */
    }
  }
}

async function devKey(serviceUrl, masterKey) {
  const keyFile = path.join(devDir, 'api-key');
  const existing = readSecret(keyFile);
  if (existing) {
    const r = await fetch(`${serviceUrl}/api/v1/live/sessions`, { method: 'POST', headers: { authorization: `Bearer ${existing}` } });
    if (r.ok) return { key: existing, created: false };
    say(`the stored development key was refused (HTTP ${r.status}): creating a new one`);
  }
  const r = await fetch(`${serviceUrl}/v1/api-keys`, {
    method: 'POST',
    headers: { authorization: `Bearer ${masterKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'npm start (development)', type: 'personal', environment: 'test', permissions: ['read', 'write'] }),
  });
  const body = await r.json().catch(() => ({}));
  if (r.status !== 201 || typeof body.key !== 'string') {
    throw new Error(
      `could not create a development key (HTTP ${r.status}: ${body?.error?.message ?? 'no message'}). ` +
        'If .dictee-data/ was made by a service started with another master key, set DICTEE_MASTER_KEY to that key, or move .dictee-data/ away.',
    );
  }
  writeSecret(keyFile, body.key);
  return { key: body.key, created: true };
}

/**
 * When no sound server answers (a server, a container) and PulseAudio is installed, starts a private
 * PulseAudio daemon with a virtual microphone (null sink `virtmic`, its monitor the default source) so that
 * speech can be played into dictation. Returns the environment code-server needs, or undefined.
 */
async function virtualMic() {
  const has = (cmd) => spawnSync('sh', ['-c', `command -v ${cmd}`]).status === 0;
  if (!has('pulseaudio') || !has('pactl')) return undefined;
  if (process.env.DICTEE_START_VIRTUAL_MIC !== '1' && spawnSync('pactl', ['info'], { timeout: 5000 }).status === 0) return undefined;
  const runtimeDir = path.join(startDir, 'pulse');
  mkdirSync(runtimeDir, { recursive: true, mode: 0o700 });
  chmodSync(runtimeDir, 0o700);
  const socket = path.join(runtimeDir, 'native');
  const env = { PULSE_SERVER: `unix:${socket}`, XDG_RUNTIME_DIR: runtimeDir };
  const child = spawn(
    'pulseaudio',
    [
      '--daemonize=no',
      '--exit-idle-time=-1',
      '--use-pid-file=no',
      '-n',
      `--load=module-native-protocol-unix socket=${socket} auth-anonymous=1`,
      '--load=module-null-sink sink_name=virtmic',
    ],
    { env: { ...process.env, ...env, HOME: runtimeDir }, detached: true, stdio: 'ignore' },
  );
  children.push(child);
  const pactl = (...args) => spawnSync('pactl', args, { env: { ...process.env, ...env }, timeout: 5000 });
  for (let i = 0; i < 100 && pactl('info').status !== 0; i++) await new Promise((r) => setTimeout(r, 100));
  if (pactl('set-default-source', 'virtmic.monitor').status !== 0) {
    say('could not start a virtual microphone (PulseAudio): dictation will record the default microphone');
    return undefined;
  }
  return { env, child };
}

/** The dictation languages by name, for the notes. */
const LANGUAGE_NAMES = { fr: 'French', es: 'Spanish', de: 'German', en: 'English' };

/** What the simulated engine writes: the findings and impression of the sample report, in its words. */
const SAMPLE_SCRIPT =
  'Chest radiograph shows clear lungs. No pleural effusion is seen. The heart size is within normal limits. The mediastinum is not widened. Bones and soft tissues are unremarkable. Impression: normal chest radiograph.';

/**
 * Runs the service and starts it again whenever it exits (crashed, killed), on the same port, so that
 * the editor's reconnection and resume can be seen; gives up after five exits within ten seconds of their
 * start. Resolves with the service's URL once it first listens.
 */
async function superviseService(args, env, state) {
  let port = args.port;
  let quickExits = 0;
  const once = async () => {
    const startedAt = Date.now();
    const { child, match } = await startChild(
      'service',
      process.execPath,
      ['dist/server.js', ...args.rest, '--port', String(port)],
      env,
      /listening on (http:\/\/[^\s]+)/,
    );
    port = Number(new URL(match[1]).port);
    child.once('exit', (code, signal) => {
      const i = children.indexOf(child);
      if (i >= 0) children.splice(i, 1);
      if (state.stopping) return;
      quickExits = Date.now() - startedAt < 10_000 ? quickExits + 1 : 0;
      if (quickExits >= 5) {
        say(
          `the service exited ${quickExits} times in a row just after starting (last: ${signal ?? `code ${code}`}); not starting it again. Ctrl+C stops the rest.`,
        );
        return;
      }
      say(
        `the service exited (${signal ?? `code ${code}`}); starting it again on port ${port} (code-server and the microphone keep running)`,
      );
      setTimeout(() => {
        once().catch((e) => say(`the service could not be started again: ${e instanceof Error ? e.message : String(e)}`));
      }, 1000);
    });
    return match[1];
  };
  return once();
}

async function main() {
  openLog();
  console.log(`[dictee] the details of each step go to ${logName}`);
  // 1. Install and build what is missing.
  if (!existsSync(path.join(root, 'node_modules', '.package-lock.json')))
    run('npm', ['ci', '--no-audit', '--no-fund'], 'installing npm packages (npm ci)');
  if (!existsSync(codeServerEntry) || !existsSync(path.join(root, '.cache', 'code-server', '.stamps', 'argon2.done'))) {
    run(process.execPath, ['scripts/e2e-setup.mjs', '--code-server'], 'installing code-server into .cache/ (once; a few minutes)');
  }
  run('npm', ['run', '--silent', 'build'], 'building the service, the extension and the client');
  const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
  if (!pkg.scripts?.package) {
    console.error('[dictee] package.json has no "package" script: cannot build the .vsix.');
    process.exit(1);
  }
  const vsix = path.join(root, `dictee-${pkg.version}.vsix`);
  // Packaged again only when what goes into it changed (vsix-cache.mjs): most starts change nothing.
  const stamp = path.join(startDir, 'vsix-inputs.json');
  const fresh = vsixUpToDate(root, vsix, stamp);
  if (fresh.upToDate) say(`packaging the extension: ${path.basename(vsix)} is up to date (${fresh.why})`);
  else {
    run('npm', ['run', '--silent', 'package'], `packaging the extension (${path.basename(vsix)}: ${fresh.why})`);
    if (!existsSync(vsix)) throw new Error(`npm run package did not produce ${vsix}`);
    recordVsix(vsix, stamp, fresh.hash);
  }

  // 2. The service: the engine chosen, then (under pocketsphinx) French installed when absent: start-models.mjs.
  const models = catalogueModels();
  const frenchNotes = chooseEngineThenFrench(chosen, models, pocketsphinxInstalled(), (engine) => prepareFrench(root, engine, process.env));
  for (const note of frenchNotes) say(note);
  mkdirSync(devDir, { recursive: true, mode: 0o700 });
  let masterKey = process.env.DICTEE_MASTER_KEY;
  if (!masterKey) {
    const file = path.join(devDir, 'master-key');
    masterKey = readSecret(file);
    if (!masterKey) {
      masterKey = `master_${randomBytes(32).toString('base64url')}`;
      writeSecret(file, masterKey);
    }
  }
  const servicePort = await pickPort(Number(process.env.DICTEE_PORT ?? 8787), 'the service');
  mkdirSync(startDir, { recursive: true });
  const scriptFile = path.join(startDir, 'script.txt');
  writeFileSync(scriptFile, SAMPLE_SCRIPT);
  const state = { stopping: false };
  // `on`, not `once`: a second Ctrl+C (npm forwards the signal too) must not end this script before
  // it has stopped its children.
  process.on('SIGINT', () => (state.stopping = true));
  process.on('SIGTERM', () => (state.stopping = true));
  const serviceStarted = step(`starting the service (${chosen.engine} engine${chosen.model ? `, ${chosen.model}` : ''})`);
  const serviceUrl = await superviseService(
    {
      port: servicePort,
      rest: [
        '--host',
        '127.0.0.1',
        '--data-dir',
        serviceDataDir,
        '--engine',
        chosen.engine,
        ...(chosen.model ? ['--model', chosen.model] : []),
        ...(chosen['proofread-model'] ? ['--proofread-model', chosen['proofread-model']] : []),
        ...(chosen.engine === 'simulated' ? ['--script', scriptFile] : []),
      ],
    },
    { DICTEE_MASTER_KEY: masterKey },
    state,
  );
  serviceStarted(serviceUrl);
  writeFileSync(serviceFile, `${JSON.stringify({ url: serviceUrl, pid: process.pid })}\n`);
  // The dictation language: the one the engine serves (the setting's own default, auto, follows VS Code's language).
  const health = await fetch(`${serviceUrl}/healthz`)
    .then((r) => r.json())
    .catch(() => ({}));
  const served = Array.isArray(health.languages) ? health.languages : undefined;
  const ui = displayLanguage(vscodeLocale(path.join(startDir, 'user-data'), process.env), served);
  const language = ui ? { language: ui, why: displayLanguageWhy(chosen.engine) } : startLanguage(served, chosen.engine);
  const keyReady = step('the development key');
  const { key: apiKey, created } = await devKey(serviceUrl, masterKey);
  keyReady(created ? 'created' : 'the stored one is valid');

  // 3. code-server with the extension.
  const userData = path.join(startDir, 'user-data');
  const extensions = path.join(startDir, 'extensions');
  // Outside the clone (a workspace inside it would make VS Code offer the clone's git repository), one per clone.
  const workspace = startWorkspace(root, os.tmpdir(), process.getuid?.() ?? 'user');
  for (const d of [path.join(userData, 'User'), path.join(userData, 'Machine'), extensions, workspace]) mkdirSync(d, { recursive: true });
  const report = path.join(workspace, 'report.md');
  const sample = sampleReport(language.language);
  if (!existsSync(report)) writeFileSync(report, sample.text);
  const settings = JSON.stringify(
    {
      'dictee.serverUrl': serviceUrl,
      'dictee.language': language.language,
      // The recorder runs on this machine, which is the user's: it records the microphone (or the virtual
      // one below). In code-server `auto` would open the capture page in the browser instead.
      'dictee.audio.source': 'recorder',
      'dictee.specialty': 'radiology',
      'workbench.startupEditor': 'none',
      'security.workspace.trust.enabled': false,
      'telemetry.telemetryLevel': 'off',
      'update.mode': 'none',
      'editor.wordWrap': 'on',
      // The service restarting on its port would otherwise offer to forward it each time.
      'remote.autoForwardPorts': false,
    },
    null,
    2,
  );
  // dictee.serverUrl is machine-scoped: code-server reads it from the remote's Machine settings. The
  // language and vocabulary stay out of them: there they would take the language picker's choice into the
  // Remote settings, which Settings' User tab does not show.
  writeFileSync(path.join(userData, 'User', 'settings.json'), settings);
  const { 'dictee.language': _language, 'dictee.specialty': _specialty, ...machine } = JSON.parse(settings);
  writeFileSync(path.join(userData, 'Machine', 'settings.json'), JSON.stringify(machine, null, 2));
  const micStarted = step('looking for a sound server');
  const mic = await virtualMic();
  micStarted(mic ? 'none answers: a virtual microphone is started' : 'found one');
  const csEnv = { XDG_CONFIG_HOME: path.join(startDir, 'xdg'), XDG_DATA_HOME: path.join(startDir, 'xdg'), ...(mic?.env ?? {}) };
  // The extension imports DICTEE_API_KEY into VS Code's secret storage when none is stored there.
  const csRunEnv = { ...csEnv, DICTEE_API_KEY: apiKey };
  const installed = step(`installing ${path.basename(vsix)} into code-server`);
  const inst = spawnSync(
    process.execPath,
    [codeServerEntry, '--user-data-dir', userData, '--extensions-dir', extensions, '--install-extension', vsix, '--force'],
    { cwd: root, encoding: 'utf8', env: { ...process.env, ...csEnv } },
  );
  log(`${inst.stdout ?? ''}${inst.stderr ?? ''}`);
  if (inst.status !== 0)
    fail(
      `installing ${path.basename(vsix)} into code-server`,
      inst.error ? inst.error.message : `exit code ${inst.status}`,
      `${inst.stdout ?? ''}${inst.stderr ?? ''}`,
    );
  installed();
  const codePort = await pickPort(Number(process.env.DICTEE_CODE_PORT ?? 8080), 'code-server');
  const csStarted = step('starting code-server');
  const { child: csChild, match: csListen } = await startChild(
    'code-server',
    process.execPath,
    [
      codeServerEntry,
      '--auth',
      'none',
      '--bind-addr',
      `127.0.0.1:${codePort}`,
      '--disable-telemetry',
      '--disable-update-check',
      '--disable-workspace-trust',
      '--user-data-dir',
      userData,
      '--extensions-dir',
      extensions,
      workspace,
    ],
    csRunEnv,
    /HTTP server listening on (http:\/\/[^\s]+?)\/?\s/,
  );
  // `payload` opens report.md with the cursor after the findings' label ("Findings: ": line 5, column 11).
  const base = csListen[1];
  csStarted(base);
  const payload = JSON.stringify([
    ['openFile', `vscode-remote://${new URL(base).host}${report}:${sample.line}:${sample.column}`],
    ['gotoLineMode', 'true'],
  ]);
  const url = `${base}/?folder=${encodeURIComponent(workspace)}&payload=${encodeURIComponent(payload)}`;
  const keyFile = path.relative(root, path.join(devDir, 'api-key'));
  console.log(`
Dictée is running.

  Open        ${url}
  Service     ${serviceUrl}   (data in ${path.relative(root, serviceDataDir)}/); if it stops (kill it to see the
              editor reconnect), it is started again. npm run client -- FILE uses it.
  Engine      ${engineNote(models, served)}
  Served      ${servedNote(health, chosen.engine)}
  Language    ${language.language}: ${language.why}. npm start sets dictee.language to it;
              the setting's own default, auto, follows VS Code's display language.
  API key     a development key (svc_test_…), kept in ${keyFile} (mode 600), is handed to the
              extension through DICTEE_API_KEY; it stores it in VS Code's secret storage.
  Document    report.md opens with the cursor after "${sample.label}": run "Dictée: Start Dictation"
              (or click "Dictée" in the status bar) and speak. It is in ${workspace},
              this clone's own workspace, kept between runs (delete report.md there for a fresh one).

${
  mic
    ? `  Microphone  no sound server was running, so dictation records a virtual microphone. Play speech into it:
${
  language.language !== 'en' && chosen.engine !== 'simulated'
    ? `                PULSE_SERVER=${mic.env.PULSE_SERVER} paplay --device=virtmic YOUR-RECORDING.wav
              (a recording of ${LANGUAGE_NAMES[language.language] ?? language.language} speech of your own: none ships with
              this machine's packages, and pocketsphinx recognises people, not synthetic speech)`
    : chosen.engine === 'pocketsphinx' && existsSync(RECORDED_SPEECH)
      ? `                PULSE_SERVER=${mic.env.PULSE_SERVER} paplay --device=virtmic ${RECORDED_SPEECH}
              (a real recorded voice: pocketsphinx recognises people, not synthetic speech such as espeak-ng's)`
      : `                espeak-ng -v en -w /tmp/speech.wav "Chest radiograph shows clear lungs. No pleural effusion."
                PULSE_SERVER=${mic.env.PULSE_SERVER} paplay --device=virtmic /tmp/speech.wav`
}
              (start dictation first and wait a second or two: the recorder needs a moment to start)`
    : `  Microphone  the default microphone of this machine's sound server (sox records it). No microphone?
              DICTEE_START_VIRTUAL_MIC=1 npm start records a virtual one that speech can be played into.`
}

  Log         ${logName}: what each step, the service and code-server printed.

Ctrl+C stops everything.
`);
  // Ctrl+C stops everything; code-server or the microphone exiting stops everything too (the service is restarted).
  await new Promise((resolve) => {
    for (const c of [csChild, ...(mic ? [mic.child] : [])]) {
      c.once('exit', (code) => {
        // Ctrl+C reaches the whole process group: their exit is then the stop asked for, not news.
        if (!state.stopping) say(`${c === csChild ? 'code-server' : 'the virtual microphone'} exited (code ${code}); stopping`);
        resolve();
      });
    }
    process.on('SIGINT', resolve);
    process.on('SIGTERM', resolve);
  });
  state.stopping = true;
  say('stopping the service, code-server and the microphone');
  await stopAndWait();
}

process.on('exit', () => {
  stopAll();
  rmSync(serviceFile, { force: true });
});
main()
  .then(() => process.exit(0))
  .catch((e) => {
    if (openLine) process.stdout.write('failed\n');
    openLine = false;
    console.error(
      typeof e?.output === 'string'
        ? `\n${failureReport('npm start', e.message, e.output, logName, 15)}`
        : `\n[dictee] npm start failed: ${e instanceof Error ? e.message : String(e)}`,
    );
    stopAll();
    process.exit(1);
  });
