/**
 * The capture page seen from VS Code: its server (src/audio/browser/pageServer.ts) started when a run
 * first needs it, the page opened in the user's browser through `asExternalUri` + `openExternal` (on the
 * desktop the default browser on 127.0.0.1; in code-server its own proxy, whose host and origin the
 * server then accepts), its buttons and push-to-talk key turned into the controller's commands, the
 * dictation's state shown in it, and its closing turned into a pause that the editor tells.
 */
import { readFileSync } from 'node:fs';
import * as vscode from 'vscode';
import { ButtonRouter, buttonMap } from '../../audio/browser/dictationButtons';
import { which } from '../../audio/spawn';
import type { LiveAudioSource } from '../../audio/capture';
import { CapturePageServer, PAGE_SAMPLE_RATE, type PageRequest } from '../../audio/browser/pageServer';
import type { PageStrings } from '../../audio/browser/pageAssets';
import type { Logger } from '../../shared/logger';
import { chooseAudioSource, type DicteeSettings } from '../settingsMap';
import type { DictationState } from '../ui/statusText';
import type { SourceChoice } from './dictationController';

/** How long a page just opened may take to connect before a resume opens another. */
const PAGE_LOAD_MS = 5000;

/** What the page drives (the dictation controller). */
interface PageControls {
  readonly state: DictationState;
  readonly onDidChangeState: vscode.Event<DictationState>;
  /** A live run is about to start: the page offers itself as its source where the settings choose it. */
  readonly onWillChooseSource: vscode.Event<SourceChoice>;
  start(): Promise<unknown>;
  pause(): Promise<void>;
  resume(): Promise<void>;
  stop(): Promise<void>;
  /** Deletes the run's last utterance ("scratch that"). */
  scratchThat(): Promise<void>;
}

/** The page's words in the language of VS Code. */
function pageStrings(): PageStrings {
  return {
    title: vscode.l10n.t('Dictée: microphone'),
    start: vscode.l10n.t('Start'),
    pause: vscode.l10n.t('Pause'),
    stop: vscode.l10n.t('Stop'),
    level: vscode.l10n.t('Input level'),
    holdToTalk: vscode.l10n.t('Hold {0} to talk, release it to pause.'),
    connecting: vscode.l10n.t('Connecting…'),
    recording: vscode.l10n.t('Recording'),
    paused: vscode.l10n.t('Paused'),
    idle: vscode.l10n.t('Not dictating'),
    stopping: vscode.l10n.t('Finishing…'),
    closed: vscode.l10n.t('This page is closed. Start dictation again in VS Code to open a new one.'),
    micRefused: vscode.l10n.t('The browser did not give the microphone: {0}'),
    privacy: vscode.l10n.t('The sound goes only to VS Code while recording; this page keeps nothing.'),
    clickToStart: vscode.l10n.t('The browser waits for a click: click Start to record.'),
    connectDevice: vscode.l10n.t('Connect a dictation microphone…'),
    devices: vscode.l10n.t('Dictation microphones connected: {0}'),
  };
}

export class BrowserPage implements vscode.Disposable {
  private server: CapturePageServer | undefined;
  private readonly listeners: vscode.Disposable[] = [];
  private pushToTalkTold = false;
  /** The buttons of the dictation microphones of the page connected now, into dictation's actions. */
  private readonly buttons: ButtonRouter;
  /** When a page was last opened (a page still loading is not opened twice). */
  private openedAt = -Infinity;

  constructor(
    private readonly controls: PageControls,
    private readonly log: Logger,
    /** dist/dictation_support.js (copied from the npm package by the build), served to the page for dictation microphones. */
    private readonly hidLibraryPath?: string,
  ) {
    this.listeners.push(
      controls.onDidChangeState((s) => this.server?.setState(s)),
      controls.onWillChooseSource((choice) => {
        const page = this.sourceFor(choice.settings);
        if (page) choice.offer(page);
      }),
    );
    this.buttons = new ButtonRouter(
      {
        state: () => this.controls.state,
        request: (r) => this.request(r),
        field: async (d) => void (await vscode.commands.executeCommand(d === 'next' ? 'dictee.nextField' : 'dictee.previousField')),
        scratchThat: () => this.controls.scratchThat(),
        playBack: async () => void (await vscode.commands.executeCommand('dictee.playBack')),
      },
      undefined,
      false,
      (line) => this.log.info(`capture page: ${line}`),
    );
  }

  /**
   * The capture page as the source of a live run, when `dictee.audio.source` (or `auto`, here) says so;
   * undefined for the recorder. The page records 16 kHz: the run's settings take that rate.
   */
  sourceFor(settings: DicteeSettings): { source: LiveAudioSource; settings: DicteeSettings } | undefined {
    const chosen = chooseAudioSource(settings.audioSource, {
      web: vscode.env.uiKind === vscode.UIKind.Web,
      remoteName: vscode.env.remoteName,
      recorderFound: which(settings.recorder) !== undefined,
    });
    if (chosen === 'recorder') {
      if (settings.mode === 'pushToTalk' && !this.pushToTalkTold) {
        this.pushToTalkTold = true;
        void vscode.window
          .showInformationMessage(
            vscode.l10n.t(
              'Dictée: push-to-talk needs the capture page in the browser (a key held down is something only the page can see). Set "Audio: Source" to "browser" to use it.',
            ),
            vscode.l10n.t('Open Settings'),
          )
          .then((c) => c && vscode.commands.executeCommand('workbench.action.openSettings', 'dictee.audio.source'));
      }
      return undefined;
    }
    this.log.info(
      `audio: the capture page in the browser (dictee.audio.source ${settings.audioSource}${settings.audioSource === 'auto' ? `; ui ${vscode.env.uiKind === vscode.UIKind.Web ? 'web' : 'desktop'}, remote ${vscode.env.remoteName ?? 'none'}` : ''})`,
    );
    const server = this.ensureServer();
    const source: LiveAudioSource = {
      start: () => {
        server.start();
        if (!server.connected && Date.now() - this.openedAt > PAGE_LOAD_MS) void this.open(server, settings);
      },
      stop: () => server.stop(),
      on: (event, listener) => server.on(event, listener as never),
    };
    return { source, settings: { ...settings, sampleRate: PAGE_SAMPLE_RATE } };
  }

  private ensureServer(): CapturePageServer {
    if (this.server) return this.server;
    let hidLibrary: string | undefined;
    try {
      if (this.hidLibraryPath) hidLibrary = readFileSync(this.hidLibraryPath, 'utf8');
    } catch (e) {
      this.log.warn(`capture page: no dictation microphones (${e instanceof Error ? e.message : String(e)})`);
    }
    const server = new CapturePageServer({ logger: this.log, hidLibrary });
    server.on('request', (r) => void this.request(r));
    server.on('buttons', (mask) => void this.buttons.pressed(mask));
    server.on('page', (p) => {
      this.buttons.reset();
      if (p === 'closed') void this.closed();
    });
    this.server = server;
    return server;
  }

  /** Opens a new page in the user's browser (a new single-use address each time). */
  private async open(server: CapturePageServer, settings: DicteeSettings): Promise<void> {
    this.openedAt = Date.now();
    try {
      await server.listen();
      const { map, problems } = buttonMap(settings.micButtons);
      for (const p of problems) this.log.warn(`settings: dictee.dictationMicrophone.buttons: ${p}`);
      this.buttons.configure(map, settings.mode === 'pushToTalk');
      server.configure({ mode: settings.mode, key: settings.pushToTalkKey, lang: vscode.env.language, strings: pageStrings() });
      const local = vscode.Uri.parse(server.newPageUrl());
      // code-server maps the address's origin to its proxy (`…/proxy/PORT/`) and drops the path: the root
      // is mapped, and the page's path joined to what comes back.
      const root = await vscode.env.asExternalUri(local.with({ path: '/' }));
      const external = root.with({ path: `${root.path.replace(/\/+$/, '')}${local.path}` });
      server.allowExternal(external.toString(true));
      // Never the address itself: it carries the page's token.
      this.log.info(
        `capture page: opening it in the browser${external.authority === local.authority ? '' : ` through ${external.scheme}://${external.authority}`}`,
      );
      if (await vscode.env.openExternal(external)) return;
      const copy = vscode.l10n.t('Copy the Address');
      const choice = await vscode.window.showWarningMessage(
        vscode.l10n.t('Dictée: the capture page could not be opened in the browser. Open its address yourself within two minutes.'),
        copy,
      );
      if (choice === copy) await vscode.env.clipboard.writeText(external.toString(true));
    } catch (e) {
      this.log.error(`capture page: could not be opened: ${e instanceof Error ? e.message : String(e)}`);
      void vscode.window.showErrorMessage(vscode.l10n.t('Dictée: the capture page could not be opened. See the log.'));
    }
  }

  private async request(r: PageRequest): Promise<void> {
    const state = this.controls.state;
    this.log.info(`capture page: ${r} (dictation ${state})`);
    if (r === 'start') {
      if (state === 'idle') await this.controls.start();
      else if (state === 'paused') await this.controls.resume();
    } else if (r === 'pause') {
      if (state === 'recording') await this.controls.pause();
    } else if (state !== 'idle' && state !== 'stopping') await this.controls.stop();
  }

  /** The page went away: dictation pauses (nothing can be recorded), and the editor says so. */
  private async closed(): Promise<void> {
    if (this.controls.state !== 'recording') return;
    await this.controls.pause();
    const resume = vscode.l10n.t('Resume');
    const choice = await vscode.window.showWarningMessage(
      vscode.l10n.t('Dictée: the capture page was closed, so dictation is paused. Resume to open a new page.'),
      resume,
    );
    if (choice === resume) await this.controls.resume();
  }

  dispose(): void {
    for (const l of this.listeners) l.dispose();
    void this.server?.close();
    this.server = undefined;
  }
}
