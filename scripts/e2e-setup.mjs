#!/usr/bin/env node
// `npm run e2e:setup`: installs, idempotently, everything the end-to-end tests in real VS Code need.
//
// - Debian packages: chromium, sox (+ formats), pulseaudio, pulseaudio-utils, espeak-ng, faketime, ripgrep, the
//   pocketsphinx engine (library, en-us model, the recorded test speech), bzip2 (model archives), the
//   headers code-server's native modules build against, and postgresql, redis-server, haproxy and nginx,
//   which the integration tests of several instances start themselves (in temporary directories, on free
//   ports; never the system services). As root it runs `apt-get update` + `apt-get install`; otherwise it
//   prints the exact command and fails.
// - code-server (pinned) into `.cache/code-server/` (gitignored), with its VS Code dependencies installed
//   and its native modules rebuilt from source against this machine's Node (nothing is downloaded from
//   anywhere but the npm registry and Debian).
// - playwright-core (a devDependency; only checked).
//
// Each step leaves a stamp file in `.cache/code-server/.stamps/`; a stamped step is skipped, so a second
// run takes about a second. `--force` redoes every step.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync, chmodSync, lstatSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const CODE_SERVER_VERSION = '4.100.3';
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const cacheDir = path.join(root, '.cache', 'code-server');
const stampDir = path.join(cacheDir, '.stamps');
const csDir = path.join(cacheDir, 'node_modules', 'code-server');
const vscodeDir = path.join(csDir, 'lib', 'vscode');
const force = process.argv.includes('--force');
/** `--code-server`: only what code-server needs (used by `npm start`: no browser, no audio tools). */
const codeServerOnly = process.argv.includes('--code-server');

export const APT_PACKAGES = [
  'chromium',
  'sox',
  'libsox-fmt-all',
  'pulseaudio',
  'pulseaudio-utils',
  'espeak-ng',
  'faketime',
  'ripgrep',
  'pocketsphinx',
  'libpocketsphinx3',
  'pocketsphinx-en-us',
  'pocketsphinx-testdata',
  'sphinxbase-utils',
  'bzip2',
  'libkrb5-dev',
  'libx11-dev',
  'libxkbfile-dev',
  'libsecret-1-dev',
  'pkg-config',
  'build-essential',
  'python3',
  'postgresql',
  'redis-server',
  'haproxy',
  'nginx',
];

const t0 = Date.now();
const log = (msg) => console.log(`[e2e:setup ${((Date.now() - t0) / 1000).toFixed(1)}s] ${msg}`);

function run(cmd, args, opts = {}) {
  log(`$ ${cmd} ${args.join(' ')}${opts.cwd ? `   (in ${path.relative(root, opts.cwd) || '.'})` : ''}`);
  const r = spawnSync(cmd, args, { stdio: ['ignore', 'inherit', 'inherit'], ...opts, env: { ...process.env, ...(opts.env ?? {}) } });
  if (r.error) throw new Error(`${cmd} could not start: ${r.error.message}`);
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed with exit code ${r.status}`);
}

function stamp(name) {
  return path.join(stampDir, `${name}.done`);
}

/** Runs `fn` unless its stamp (holding `key`) exists; writes the stamp after it succeeds. */
function step(name, key, fn) {
  const file = stamp(name);
  if (!force && existsSync(file) && readFileSync(file, 'utf8') === key) {
    log(`${name}: already done`);
    return;
  }
  const s = Date.now();
  fn();
  mkdirSync(stampDir, { recursive: true });
  writeFileSync(file, key);
  log(`${name}: done in ${((Date.now() - s) / 1000).toFixed(1)}s`);
}

/** What code-server alone needs: ripgrep and what its native modules build with. */
const CODE_SERVER_APT_PACKAGES = [
  'ripgrep',
  'libkrb5-dev',
  'libx11-dev',
  'libxkbfile-dev',
  'libsecret-1-dev',
  'pkg-config',
  'build-essential',
  'python3',
];

function missingDebPackages() {
  const wanted = codeServerOnly ? CODE_SERVER_APT_PACKAGES : APT_PACKAGES;
  if (spawnSync('sh', ['-c', 'command -v dpkg-query'], { encoding: 'utf8' }).status !== 0) {
    log('not a Debian system (no dpkg-query): install the equivalents of these packages yourself: ' + wanted.join(' '));
    return [];
  }
  const r = spawnSync('dpkg-query', ['-W', '-f=${Package} ${db:Status-Abbrev}\n', ...wanted], { encoding: 'utf8' });
  const installed = new Set(
    (r.stdout ?? '')
      .split('\n')
      .filter((l) => /\sii\s*$/.test(l))
      .map((l) => l.split(' ')[0]),
  );
  return wanted.filter((p) => !installed.has(p));
}

function systemPackages() {
  const missing = missingDebPackages();
  if (missing.length === 0) {
    log('system packages: all present');
    return;
  }
  const cmd = `apt-get update && apt-get install -y --no-install-recommends ${missing.join(' ')}`;
  if (typeof process.getuid === 'function' && process.getuid() === 0) {
    log(`system packages missing: ${missing.join(' ')}`);
    const env = { DEBIAN_FRONTEND: 'noninteractive' };
    run('apt-get', ['update', '-qq'], { env });
    run('apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...missing], { env });
    return;
  }
  console.error(
    `\n${codeServerOnly ? 'code-server needs' : 'The end-to-end tests need'} these Debian packages: ${missing.join(' ')}\nRun as root:\n\n  sudo sh -c '${cmd}'\n\nthen run this again.`,
  );
  process.exit(1);
}

function installedCodeServerVersion() {
  try {
    return JSON.parse(readFileSync(path.join(csDir, 'package.json'), 'utf8')).version;
  } catch {
    return undefined;
  }
}

function codeServer() {
  const key = `code-server@${CODE_SERVER_VERSION} node ${process.versions.modules}`;
  mkdirSync(cacheDir, { recursive: true });
  const pkgFile = path.join(cacheDir, 'package.json');
  const pkg = { name: 'dictee-e2e-cache', private: true, dependencies: { 'code-server': CODE_SERVER_VERSION } };
  step('code-server-package', key, () => {
    if (installedCodeServerVersion() !== CODE_SERVER_VERSION) {
      writeFileSync(pkgFile, JSON.stringify(pkg, null, 2) + '\n');
      // --ignore-scripts: its postinstall would run `npm install` in lib/vscode with scripts, which tries
      // to download prebuilt binaries (ripgrep, electron headers); the steps below do the same offline.
      run('npm', ['install', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: cacheDir });
    }
    if (installedCodeServerVersion() !== CODE_SERVER_VERSION)
      throw new Error(`code-server ${CODE_SERVER_VERSION} did not install in ${cacheDir}`);
  });
  step('vscode-deps', key, () => {
    run('npm', ['install', '--omit=dev', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: vscodeDir });
  });
  step('ripgrep', key, () => {
    // @vscode/ripgrep's postinstall downloads a binary; Debian's ripgrep is the same program.
    const rg = spawnSync('sh', ['-c', 'command -v rg'], { encoding: 'utf8' }).stdout.trim();
    if (!rg) throw new Error('ripgrep (rg) is not on PATH: install the Debian package ripgrep');
    const binDir = path.join(vscodeDir, 'node_modules', '@vscode', 'ripgrep', 'bin');
    mkdirSync(binDir, { recursive: true });
    copyFileSync(rg, path.join(binDir, 'rg'));
    chmodSync(path.join(binDir, 'rg'), 0o755);
  });
  step('vscode-native', key, () => {
    run('npm', ['rebuild', 'kerberos', 'node-pty', '@parcel/watcher', '@vscode/deviceid', '@vscode/spdlog', 'native-watchdog'], {
      cwd: vscodeDir,
      env: { npm_config_yes: 'true' },
    });
  });
  step('asar-link', key, () => {
    const link = path.join(vscodeDir, 'node_modules.asar');
    let exists = false;
    try {
      lstatSync(link);
      exists = true;
    } catch {
      /* absent */
    }
    if (exists) rmSync(link, { recursive: true, force: true });
    symlinkSync('node_modules', link);
  });
  step('vscode-extensions-deps', key, () => {
    run('npm', ['install', '--omit=dev', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'], {
      cwd: path.join(vscodeDir, 'extensions'),
    });
  });
  step('argon2', key, () => {
    run('npm', ['rebuild', 'argon2'], { cwd: cacheDir, env: { npm_config_yes: 'true' } });
  });
}

function playwright() {
  try {
    createRequire(path.join(root, 'package.json')).resolve('playwright-core');
    log('playwright-core: present');
  } catch {
    throw new Error('playwright-core is not installed: run npm ci (it is a devDependency)');
  }
}

function smoke() {
  const bin = path.join(csDir, 'out', 'node', 'entry.js');
  if (!existsSync(bin)) throw new Error(`code-server entry point missing: ${bin}`);
  const env = { ...process.env, XDG_CONFIG_HOME: path.join(cacheDir, 'config'), XDG_DATA_HOME: path.join(cacheDir, 'data') };
  const r = spawnSync(process.execPath, [bin, '--version'], { encoding: 'utf8', timeout: 60_000, env });
  if (r.status !== 0) throw new Error(`code-server --version failed: ${r.stderr || r.stdout}`);
  log(`code-server --version: ${r.stdout.trim().split('\n').pop()}`);
}

try {
  systemPackages();
  codeServer();
  if (!codeServerOnly) playwright();
  smoke();
  log('ready');
} catch (e) {
  console.error(`\ne2e:setup failed: ${e instanceof Error ? e.message : String(e)}`);
  process.exit(1);
}
