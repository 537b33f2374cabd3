/**
 * Play Back: the sentence under the cursor (or the selection) played from the run's audio, in a small
 * webview player in the bottom panel (the view "Player" of the panel's "Dictée": not named "Play Back", so that the
 * palette's generated "Dictée: Focus on Player View" is not found by the command's name), its words lit as
 * they pass; the editor keeps the keyboard and is not split. The audio stays on the user's machine,
 * in memory (client/proofreading/runAudio.ts): it is played in the webview (the user's side, in the
 * browser too), never written into the document nor sent anywhere. It is forgotten when its document is
 * closed, unless `dictee.audio.keep` keeps it until VS Code closes.
 *
 * The samples go to the player as they are (16-bit PCM, a typed array in the message), which plays them
 * with Web Audio; the player is kept while hidden (the panel closed, another view shown over it), so that
 * only the first Play Back in the window waits for it to be made, or the first after the user removed it.
 */
import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';
import type { PlacedChunk } from '../../client/proofreading/proofMarks';
import { RunAudio, shownWords, type TimedWord } from '../../client/proofreading/runAudio';
import { REOPEN_GRACE_MS } from '../editor/vscodeDocument';
import type { Logger } from '../../shared/logger';
import type { DoubtfulWords } from './doubtfulWords';
import { playerHtml, type PlayerUpdate, type PlayMessage } from './playerHtml';

/** This machine's wall clock (ms), with the precision of `performance.now()`: the player's page reads the same. */
const wallClock = (): number => performance.timeOrigin + performance.now();

/** The player's view in the panel (package.json `contributes.views`). */
export const PLAYER_VIEW = 'dictee.player';

export class PlayBack implements vscode.WebviewViewProvider, vscode.Disposable {
  /** The audio of each run, by document. */
  private readonly audio = new Map<string, Map<number, RunAudio>>();
  /** The player, once VS Code has made it (the first Play Back in the window, or the panel showing it). */
  private view: vscode.WebviewView | undefined;
  /** The sentence asked for while the player was being made: it comes with its page. */
  private pending: PlayMessage | undefined;
  /** The sentence the player shows: its chunks, and the words sent for them. */
  private shown: { doc: vscode.TextDocument; ids: string[]; startMs: number; words: string } | undefined;
  private readonly listeners: vscode.Disposable[];

  constructor(
    private readonly words: DoubtfulWords,
    private readonly log: Logger,
  ) {
    this.listeners = [
      vscode.workspace.onDidCloseTextDocument((d) => {
        const uri = d.uri.toString();
        setTimeout(() => {
          if (vscode.workspace.textDocuments.some((t) => t.uri.toString() === uri && !t.isClosed)) return;
          if (!vscode.workspace.getConfiguration('dictee').get<boolean>('audio.keep', false)) this.audio.delete(uri);
        }, REOPEN_GRACE_MS);
      }),
      // The sentence shown changed (a correction, an edit): the player shows it as it now reads, or nothing once it is gone.
      words.onDidEdit((d) => this.refresh(d)),
    ];
  }

  /** Run `run` dictates into `doc`: its audio is kept for Play Back. */
  keep(doc: vscode.TextDocument, run: number, sampleRate: number): RunAudio {
    const key = doc.uri.toString();
    let runs = this.audio.get(key);
    if (!runs) this.audio.set(key, (runs = new Map()));
    const audio = new RunAudio(sampleRate);
    runs.set(run, audio);
    return audio;
  }

  /** The quick fix of a doubtful word, and its hover: the sentence of `[start, end)` of `uri`. */
  async playRange(uri: vscode.Uri, start: number, end: number): Promise<void> {
    const doc = await vscode.workspace.openTextDocument(uri);
    const editor = vscode.window.visibleTextEditors.find((e) => e.document === doc) ?? (await vscode.window.showTextDocument(doc));
    editor.selection = new vscode.Selection(doc.positionAt(start), doc.positionAt(end));
    this.play(editor);
  }

  /** The command: the sentence under the cursor, or the selection. */
  play(editor = vscode.window.activeTextEditor): void {
    if (!editor) return;
    const askedAt = wallClock();
    const d = editor.document;
    const marks = this.words.marksOf(d);
    const sel = editor.selection;
    const from = d.offsetAt(sel.start);
    const to = d.offsetAt(sel.end);
    const chunks = (
      marks ? (sel.isEmpty ? [marks.chunkAt(from)].filter((c): c is PlacedChunk => c !== undefined) : marks.chunksIn(from, to)) : []
    ).filter((c) => c.audio);
    const first = chunks[0]?.audio;
    // One run's service session at a time (times of another session are not comparable).
    const same = chunks.filter((c) => c.audio!.run === first?.run && c.audio!.generation === first?.generation);
    const audio = first && this.audio.get(d.uri.toString())?.get(first.run);
    if (!first || !audio) {
      void vscode.window.showInformationMessage(vscode.l10n.t('Dictée: no dictated audio is kept for the text at the cursor.'));
      return;
    }
    const startMs = Math.min(...same.map((c) => c.audio!.startMs));
    const endMs = Math.max(...same.map((c) => c.audio!.endMs));
    const pcm = audio.slice(first.generation, startMs, endMs);
    if (!pcm) {
      void vscode.window.showInformationMessage(vscode.l10n.t('Dictée: the audio of this sentence is no longer kept.'));
      return;
    }
    // The words as they now read in the document (a correction changed them, maybe), not as the engine heard them.
    const words: TimedWord[] = same.flatMap((c) => shownWords(d.getText().slice(c.start, c.end), c.words, startMs));
    this.shown = { doc: d, ids: same.map((c) => c.id), startMs, words: JSON.stringify(words) };
    this.show({
      type: 'play',
      pcm: new Uint8Array(pcm.buffer, pcm.byteOffset, pcm.length),
      sampleRate: audio.sampleRate,
      startMs,
      endMs,
      words,
      askedAt,
    });
  }

  /** The empty player's button: the editor the user was in (the player itself has the keyboard now). */
  private playAtCursor(): void {
    const editor = vscode.window.activeTextEditor ?? vscode.window.visibleTextEditors[0];
    if (!editor) {
      void vscode.window.showInformationMessage(vscode.l10n.t('Dictée: put the cursor in dictated text, then Play Back.'));
      return;
    }
    this.play(editor);
  }

  /** VS Code makes the player: when Play Back first shows it, or when the panel shows it (a window restored). */
  resolveWebviewView(view: vscode.WebviewView): void {
    this.view = view;
    view.onDidDispose(() => {
      if (this.view === view) this.view = undefined;
    });
    view.webview.options = { enableScripts: true, localResourceRoots: [] };
    view.webview.onDidReceiveMessage((m: { type?: unknown; askedAt?: unknown; at?: unknown }) => {
      // The empty player's button: the sentence at the cursor of the editor the user was in.
      if (m?.type === 'playAtCursor') return this.playAtCursor();
      if (m?.type !== 'playing' || typeof m.askedAt !== 'number') return;
      const heard = Math.round(wallClock() - m.askedAt);
      // The page's clock is this machine's when VS Code runs here; in a remote window it may not be.
      const first = typeof m.at === 'number' ? Math.round(m.at - m.askedAt) : -1;
      this.log.info(
        first >= 0 && first <= heard
          ? `play back: first sound ${first} ms after the command (heard ${heard} ms after)`
          : `play back: first sound heard ${heard} ms after the command`,
      );
    });
    const nonce = randomBytes(16).toString('base64');
    // The sentence asked for comes with the page: it plays as the page runs.
    view.webview.html = playerHtml(
      view.webview.cspSource,
      nonce,
      {
        play: vscode.l10n.t('Play again'),
        label: vscode.l10n.t('The dictated audio of the sentence'),
        empty: vscode.l10n.t('Play Back plays here the dictated sentence at the cursor.'),
        atCursor: vscode.l10n.t('Play the sentence at the cursor'),
      },
      this.pending,
    );
    this.pending = undefined;
  }

  /** After an edit of `doc`: the words of the sentence shown, sent again when they changed; cleared once it is gone. */
  private refresh(doc: vscode.TextDocument): void {
    const shown = this.shown;
    if (!shown || shown.doc !== doc) return;
    const marks = this.words.marksOf(doc);
    const chunks = shown.ids.map((id) => marks?.chunk(id)).filter((c): c is PlacedChunk => c !== undefined && c.end > c.start);
    const words = chunks.flatMap((c) => shownWords(doc.getText().slice(c.start, c.end), c.words, shown.startMs));
    const json = JSON.stringify(words);
    if (json === shown.words) return;
    shown.words = json;
    const message: PlayerUpdate = words.length > 0 ? { type: 'words', words } : { type: 'clear' };
    if (message.type === 'clear') this.shown = undefined;
    if (this.pending) {
      // Not made yet: the page comes with the sentence as it now reads, or with none.
      this.pending = message.type === 'words' ? { ...this.pending, words } : undefined;
      return;
    }
    void this.view?.webview.postMessage(message);
  }

  private show(message: PlayMessage): void {
    if (this.view) {
      // Shown without taking the keyboard from the editor: the user goes on dictating or typing.
      if (!this.view.visible) this.view.show(true);
      void this.view.webview.postMessage(message);
      return;
    }
    // Not made yet, or removed by the user: the panel shows it (without the keyboard), VS Code makes it.
    this.pending = message;
    void vscode.commands.executeCommand(`${PLAYER_VIEW}.focus`, { preserveFocus: true });
  }

  dispose(): void {
    for (const l of this.listeners) l.dispose();
    this.view = undefined;
    this.pending = undefined;
    this.shown = undefined;
    this.audio.clear();
  }
}
