/**
 * The end-to-end fixture: one PulseAudio virtual microphone, the built service, code-server with the
 * freshly packaged .vsix installed, and headless Chromium showing it. Started once for the suite (lazily,
 * by the first test that needs it), stopped by the root `after` hook — and by the process-exit handlers
 * of procs.ts if the run dies.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { startServer, type EngineOptions, type TestServer } from '../../helpers/server';
import { CODE_SERVER_ENTRY, ROOT, startCodeServer, type CodeServer } from './codeServer';
import { startVirtualMic, type VirtualMic } from './pulse';
import { killOnExit, stopAll } from './procs';
import { CHROMIUM, launchBrowser, Workbench } from './workbench';
import { LOCALE } from './ui';

/** The words the simulated engine "recognises", in order (`--script`). Unique words, two sentences. */
export const SCRIPT =
  'Chest radiograph shows clear lungs. No pleural effusion is seen. The heart size is within normal limits. The mediastinum is not widened. Bones and soft tissues are unremarkable. Impression: normal study of the chest.';

/** What the editor is expected to show of the script's words before proofreading (first pass). */
export function firstPassWords(text: string): string[] {
  return text
    .split(/\s+/)
    .map((w) => w.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, '').toLowerCase())
    .filter((w) => w !== '');
}

/** Settings that make dictation fast to test: short pauses end chunks and sentences quickly. */
export function dicteeSettings(serverUrl: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    'dictee.serverUrl': serverUrl,
    'dictee.language': 'en',
    'dictee.specialty': 'radiology',
    // code-server is VS Code for the Web, where `auto` records in the capture page: these tests record
    // the PulseAudio virtual microphone with the recorder (browser-capture.test.ts tests the page).
    'dictee.audio.source': 'recorder',
    // No doubtful-word marks outside the proofreading scenarios (they set a threshold): the marks of one
    // scenario's document would otherwise still be counted in the next one's.
    'dictee.proofreading.threshold': 0,
    'dictee.advanced.engineEndpointing': 0.3,
    'dictee.advanced.silenceThreshold': 0.8,
    'dictee.advanced.flushTimeout': 3,
    'dictee.advanced.stopDelay': 0.5,
    ...extra,
  };
}

export const REPORT_INITIAL = '# Chest X-ray report\n\nPatient: Jane Doe, 52.\n\nFindings: \n\nSigned: Dr. Martin\n';

export interface World {
  tmp: string;
  workspace: string;
  vsix: string;
  service: TestServer;
  mic: VirtualMic;
  codeServer: CodeServer;
  browser: Browser;
  wb: Workbench;
  /** A valid key created through the service's HTTP API. */
  apiKey: string;
  /** Writes report.md back to its initial content. */
  resetReport(content?: string): void;
  reportPath: string;
  /** When the workbench was ready and when the Dictée status-bar item showed, in ms after the page load. */
  startup: { workbenchReadyMs: number; statusItemMs: number };
}

/** What the suite needs on this machine; each entry names what is missing. */
export function missingPrerequisites(): string[] {
  const missing: string[] = [];
  const has = (cmd: string) => spawnSync('sh', ['-c', `command -v ${cmd}`]).status === 0;
  for (const cmd of ['sox', 'pulseaudio', 'pactl', 'paplay', 'espeak-ng'])
    if (!has(cmd)) missing.push(`${cmd} (Debian package ${cmd === 'pactl' || cmd === 'paplay' ? 'pulseaudio-utils' : cmd})`);
  if (!existsSync(CHROMIUM)) missing.push(`${CHROMIUM} (Debian package chromium)`);
  if (!existsSync(CODE_SERVER_ENTRY)) missing.push(`code-server in ${path.relative(ROOT, CODE_SERVER_ENTRY)}`);
  try {
    require.resolve('playwright-core');
  } catch {
    missing.push('playwright-core (npm ci)');
  }
  return missing;
}

export function checkPrerequisites(): void {
  const missing = missingPrerequisites();
  if (missing.length) {
    throw new Error(
      `the end-to-end tests cannot run: missing ${missing.join(', ')}.\nRun \`npm run e2e:setup\` (as root it installs everything; otherwise it prints the apt-get command), ` +
        `or set DICTEE_SKIP_E2E=1 to leave these tests out of \`npm test\` on a machine that cannot run them.`,
    );
  }
}

/**
 * Builds the .vsix with `npm run package` once per run, into a folder of its own (so that runs in
 * parallel never read each other's half-written package), or uses DICTEE_E2E_VSIX.
 */
export function buildVsix(): string {
  if (process.env.DICTEE_E2E_VSIX) return path.resolve(process.env.DICTEE_E2E_VSIX);
  const version = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'dictee-vsix-'));
  const vsix = path.join(dir, `dictee-${version}.vsix`);
  killOnExit(() => rmSync(dir, { recursive: true, force: true }));
  const r = spawnSync('npm', ['run', 'package', '--', '--out', vsix], { cwd: ROOT, encoding: 'utf8', timeout: 300_000 });
  if (r.status !== 0) throw new Error(`npm run package failed (${r.status}):\n${r.stdout}\n${r.stderr}`);
  if (!existsSync(vsix)) throw new Error(`npm run package did not produce ${vsix}:\n${r.stdout}`);
  return vsix;
}

/** The simulated engine's script file (`--script`) of the world in `tmp`. */
const scriptFileIn = (tmp: string): string => path.join(tmp, 'script.txt');

let world: Promise<World> | undefined;
let stopping: (() => Promise<void>) | undefined;

export function getWorld(): Promise<World> {
  world ??= createWorld();
  return world;
}

async function createWorld(): Promise<World> {
  checkPrerequisites();
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'dictee-e2e-'));
  const cleanups: (() => Promise<void> | void)[] = [() => rmSync(tmp, { recursive: true, force: true })];
  stopping = async () => {
    for (const c of cleanups.reverse()) await Promise.resolve(c()).catch(() => undefined);
    await stopAll();
  };
  const vsix = buildVsix();
  const scriptFile = scriptFileIn(tmp);
  writeFileSync(scriptFile, SCRIPT);
  const mic = await startVirtualMic();
  cleanups.push(() => mic.stop());
  const service = await startServer({ script: scriptFile });
  // The service is restarted by a scenario: kill whichever process is current if the run dies.
  const forget = killOnExit(() => service.process().kill('SIGKILL'));
  cleanups.push(async () => {
    await service.kill();
    forget();
    rmSync(service.dataDir, { recursive: true, force: true });
  });
  const created = await service.createKey({ name: 'e2e', type: 'personal', environment: 'test', permissions: ['read', 'write'] });
  const workspace = path.join(tmp, 'workspace');
  mkdirSync(workspace);
  const reportPath = path.join(workspace, 'report.md');
  const resetReport = (content = REPORT_INITIAL) => writeFileSync(reportPath, content);
  resetReport();
  writeFileSync(path.join(workspace, 'notes.md'), '# Notes\n');
  const codeServer = await startCodeServer({
    vsix,
    folder: workspace,
    settings: dicteeSettings(service.url),
    env: mic.env,
    locale: LOCALE,
  });
  cleanups.push(() => codeServer.stop());
  const browser = await launchBrowser();
  cleanups.push(() => browser.close());
  const wb = await Workbench.open(browser, codeServer.folderUrl);
  const ready = await wb.sincePageLoadMs();
  // The extension is active once its status-bar item shows.
  await wb.statusItem().first().waitFor({ state: 'visible', timeout: 60_000 });
  const shown = await wb.sincePageLoadMs();
  const startup = { workbenchReadyMs: ready, statusItemMs: shown };
  console.log(
    `      startup: workbench ready ${ready} ms after the page load, the Dictée status-bar item ${shown} ms (${shown - ready} ms after the workbench)`,
  );
  return { tmp, workspace, vsix, service, mic, codeServer, browser, wb, apiKey: created.key, resetReport, reportPath, startup };
}

/**
 * Restarts the suite's service (same port, data dir and keys) with another engine: `engine`'s arguments and
 * environment, or, without it, the simulated engine with the suite's script again. The extension meets it
 * at its next run.
 */
export async function useServiceEngine(w: World, engine?: EngineOptions): Promise<void> {
  await w.service.restart({ engine: engine ?? { script: scriptFileIn(w.tmp) } });
}

export async function stopWorld(): Promise<void> {
  const s = stopping;
  stopping = undefined;
  world = undefined;
  if (s) await s();
  else await stopAll();
}

let hooked = false;
/** Registers the root `after` hook that stops everything (call at the top of each e2e test file). */
export function useWorld(): void {
  if (hooked) return;
  hooked = true;
  after(async function () {
    this.timeout(60_000);
    await stopWorld();
  });
}
