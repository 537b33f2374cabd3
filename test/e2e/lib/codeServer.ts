/**
 * code-server (VS Code in the browser, installed by `npm run e2e:setup` into .cache/) with fresh user-data
 * and extensions dirs, the packaged .vsix installed and settings.json pre-written.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { start, type Proc } from './procs';

export const ROOT = path.resolve(__dirname, '..', '..', '..');
export const CODE_SERVER_ENTRY = path.join(ROOT, '.cache', 'code-server', 'node_modules', 'code-server', 'out', 'node', 'entry.js');

export interface CodeServerOptions {
  vsix: string;
  /** The folder to open (the workspace). */
  folder: string;
  /** User settings (settings.json). */
  settings: Record<string, unknown>;
  /** Extra environment for code-server and so its extension host (PulseAudio, PATH…). */
  env?: Record<string, string>;
  /** VS Code's display language (`--locale`), e.g. `fr`; English when absent. */
  locale?: string;
}

export interface CodeServer {
  url: string;
  /** URL that opens the workspace folder. */
  folderUrl: string;
  userDataDir: string;
  proc: Proc;
  /** Rewrites settings.json (VS Code picks the change up live). */
  writeSettings(settings: Record<string, unknown>): void;
  stop(): Promise<void>;
}

/** Settings that keep VS Code quiet and fast for tests. */
export const QUIET_SETTINGS: Record<string, unknown> = {
  'workbench.startupEditor': 'none',
  'workbench.tips.enabled': false,
  'workbench.enableExperiments': false,
  'workbench.welcomePage.walkthroughs.openOnInstall': false,
  'security.workspace.trust.enabled': false,
  'telemetry.telemetryLevel': 'off',
  'update.mode': 'none',
  'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': false,
  'extensions.ignoreRecommendations': true,
  'editor.minimap.enabled': false,
  // One view line per document line: the tests read the document's lines from the rendered editor.
  'editor.wordWrap': 'off',
  '[markdown]': { 'editor.wordWrap': 'off' },
  'editor.fontSize': 16,
  'editor.quickSuggestions': { other: false, comments: false, strings: false },
  'editor.suggestOnTriggerCharacters': false,
  'editor.acceptSuggestionOnEnter': 'off',
  'editor.inlineSuggest.enabled': false,
  'editor.parameterHints.enabled': false,
  'files.autoSave': 'off',
  'files.insertFinalNewline': false,
  'files.trimTrailingWhitespace': false,
  'git.enabled': false,
  'chat.commandCenter.enabled': false,
  'markdown.validate.enabled': false,
  'workbench.editor.enablePreview': false,
};

/** Installs the .vsix into `extensionsDir` with code-server's own CLI. */
export function installExtension(
  vsix: string,
  userDataDir: string,
  extensionsDir: string,
  env: NodeJS.ProcessEnv,
  idPrefix = 'dictee.dictee-',
): void {
  const r = spawnSync(
    process.execPath,
    [CODE_SERVER_ENTRY, '--user-data-dir', userDataDir, '--extensions-dir', extensionsDir, '--install-extension', vsix, '--force'],
    { encoding: 'utf8', env, timeout: 120_000 },
  );
  if (r.status !== 0) throw new Error(`code-server --install-extension ${vsix} failed (${r.status}):\n${r.stdout}\n${r.stderr}`);
  if (!readdirSync(extensionsDir).some((d) => d.startsWith(idPrefix))) {
    throw new Error(`the extension is not in ${extensionsDir} after --install-extension:\n${r.stdout}\n${r.stderr}`);
  }
}

const LOCALE_PACK = path.join(ROOT, 'test', 'fixtures', 'locale-pack');

/**
 * Makes VS Code run in `locale`. VS Code (and code-server) honour `--locale` only when a language pack for
 * it is installed, and the Marketplace's packs cannot be downloaded here: the test pack of
 * test/fixtures/locale-pack (which translates nothing of VS Code itself) is packaged for `locale`,
 * installed, and registered in languagepacks.json as VS Code's language-pack service registers a pack
 * installed from its UI (code-server's `--install-extension` does not).
 */
function installLocalePack(locale: string, base: string, userDataDir: string, extensionsDir: string, env: NodeJS.ProcessEnv): void {
  const dir = path.join(base, 'locale-pack');
  cpSync(LOCALE_PACK, dir, { recursive: true });
  const manifestFile = path.join(dir, 'package.json');
  const manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as {
    publisher: string;
    name: string;
    version: string;
    contributes: { localizations: { languageId: string }[] };
  };
  manifest.contributes.localizations[0]!.languageId = locale;
  writeFileSync(manifestFile, JSON.stringify(manifest, null, 2));
  const vsix = path.join(base, 'locale-pack.vsix');
  const vsce = path.join(ROOT, 'node_modules', '.bin', 'vsce');
  const r = spawnSync(vsce, ['package', '--allow-missing-repository', '--skip-license', '-o', vsix], {
    cwd: dir,
    encoding: 'utf8',
    timeout: 120_000,
  });
  if (r.status !== 0) throw new Error(`packaging the test language pack failed:\n${r.stdout}\n${r.stderr}`);
  installExtension(vsix, userDataDir, extensionsDir, env, `${manifest.publisher}.${manifest.name}-`);
  const id = `${manifest.publisher}.${manifest.name}`;
  const installed = path.join(extensionsDir, `${id}-${manifest.version}`);
  const packs = {
    [locale]: {
      hash: createHash('md5').update(id).update(manifest.version).digest('hex'),
      extensions: [{ extensionIdentifier: { id }, version: manifest.version }],
      translations: { vscode: path.join(installed, 'translations', 'main.i18n.json') },
      label: locale,
    },
  };
  writeFileSync(path.join(userDataDir, 'languagepacks.json'), JSON.stringify(packs));
}

export async function startCodeServer(opts: CodeServerOptions): Promise<CodeServer> {
  const base = mkdtempSync(path.join(os.tmpdir(), 'dictee-code-server-'));
  const userDataDir = path.join(base, 'user-data');
  const extensionsDir = path.join(base, 'extensions');
  const xdg = path.join(base, 'xdg');
  mkdirSync(path.join(userDataDir, 'User'), { recursive: true });
  mkdirSync(extensionsDir, { recursive: true });
  mkdirSync(xdg, { recursive: true });
  const env: NodeJS.ProcessEnv = { ...process.env, XDG_CONFIG_HOME: xdg, XDG_DATA_HOME: xdg, ...opts.env };
  delete env.VSCODE_IPC_HOOK_CLI;
  // DICTEE_E2E_CODE_SERVER_INSPECT: every Node process of code-server (its extension host among them) with an inspector
  // on a free loopback port, for bench/e2eHostProfile.ts.
  if (process.env.DICTEE_E2E_CODE_SERVER_INSPECT) env.NODE_OPTIONS = `${env.NODE_OPTIONS ?? ''} --inspect=127.0.0.1:0`.trim();
  installExtension(opts.vsix, userDataDir, extensionsDir, env);
  if (opts.locale && !opts.locale.startsWith('en')) installLocalePack(opts.locale, base, userDataDir, extensionsDir, env);
  // code-server is a remote window: `machine`-scoped settings (dictee.serverUrl) are read from the
  // remote's Machine settings, the rest from User settings. Both get the same content.
  mkdirSync(path.join(userDataDir, 'Machine'), { recursive: true });
  const writeSettings = (s: Record<string, unknown>): void => {
    const json = JSON.stringify({ ...QUIET_SETTINGS, ...s }, null, 2);
    writeFileSync(path.join(userDataDir, 'User', 'settings.json'), json);
    writeFileSync(path.join(userDataDir, 'Machine', 'settings.json'), json);
  };
  writeSettings(opts.settings);
  const proc = start(
    'code-server',
    process.execPath,
    [
      CODE_SERVER_ENTRY,
      '--auth',
      'none',
      '--bind-addr',
      '127.0.0.1:0',
      '--disable-telemetry',
      '--disable-update-check',
      '--disable-workspace-trust',
      '--disable-getting-started-override',
      ...(opts.locale ? ['--locale', opts.locale] : []),
      '--user-data-dir',
      userDataDir,
      '--extensions-dir',
      extensionsDir,
      opts.folder,
    ],
    { env, cwd: opts.folder },
  );
  const m = await proc.waitFor(/HTTP server listening on (http:\/\/127\.0\.0\.1:\d+)\//, 60_000);
  const url = m[1]!;
  return {
    url,
    folderUrl: `${url}/?folder=${encodeURIComponent(opts.folder)}`,
    userDataDir,
    proc,
    writeSettings,
    async stop() {
      await proc.stop(5000);
      rmSync(base, { recursive: true, force: true });
    },
  };
}

/**
 * A directory of links to everything in /usr/bin except `omit`, to put on PATH instead of /usr/bin, /bin
 * and /usr/sbin: the programs in `omit` are then "not installed" for whoever gets that PATH.
 */
export function pathWithout(omit: string[]): { PATH: string; dir: string } {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'dictee-path-'));
  const bin = path.join(dir, 'bin');
  mkdirSync(bin);
  for (const name of readdirSync('/usr/bin')) {
    if (omit.includes(name)) continue;
    try {
      symlinkSync(path.join('/usr/bin', name), path.join(bin, name));
    } catch {
      /* name clash: skip */
    }
  }
  const keep = (process.env.PATH ?? '')
    .split(':')
    .filter((p) => p && !['/usr/bin', '/bin', '/usr/sbin', '/sbin'].includes(p) && !omit.some((o) => existsSync(path.join(p, o))));
  return { PATH: [bin, ...keep].join(':'), dir };
}
