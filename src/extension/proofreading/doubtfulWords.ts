/**
 * Doubtful words in the editor: the marks of each document (client/proofreading/proofMarks.ts holds
 * their logic), drawn as a themable decoration on the text (never in it) in every visible editor, the
 * count of the active document in a status-bar item, and the commands Next/Previous/Accept Doubtful
 * Word. Every change of a document with marks moves them; a mark whose text is changed is gone. An
 * editor is sent its marks again only when they or their places changed (drawnRanges.ts): a word
 * dictated after the marks costs the editor no redraw. The decorations carry ranges only; a mark's hover
 * (how sure the engine was, links to accept, correct or play it) is made when asked, by a hover provider.
 */
import * as vscode from 'vscode';
import { ProofMarks, type DoubtfulMark } from '../../client/proofreading/proofMarks';
import { moveDrawn, sameDrawn, type DrawnRange } from '../../client/proofreading/drawnRanges';
import { REOPEN_GRACE_MS, textChanges } from '../editor/vscodeDocument';
import { DEFAULT_PROOFREADING_THRESHOLD } from '../settingsMap';
import { doubtfulView } from '../ui/statusText';

/** The commands a mark's hover links to. */
const HOVER_COMMANDS = ['dictee.acceptDoubtfulWord', 'dictee.correctRange', 'dictee.playRange'];

export class DoubtfulWords implements vscode.Disposable {
  private readonly docs = new Map<string, ProofMarks>();
  private readonly type: vscode.TextEditorDecorationType;
  private readonly item: vscode.StatusBarItem;
  private readonly listeners: vscode.Disposable[];
  private readonly changeEmitter = new vscode.EventEmitter<vscode.Uri>();
  /** The marks of a document changed (placed, accepted, edited away). */
  readonly onDidChange = this.changeEmitter.event;
  private readonly editEmitter = new vscode.EventEmitter<vscode.TextDocument>();
  /** What each editor was last sent (its document, the marks' ranges), to send only what changed. */
  private readonly drawn = new WeakMap<vscode.TextEditor, { doc: string; ranges: DrawnRange[] }>();
  /** The count and context key last shown. */
  private shownCount: { text: string; tooltip: string; label: string; visible: boolean; context: boolean } | undefined;
  /** A document Dictée dictated into was edited: its chunks and marks have moved with the text. */
  readonly onDidEdit = this.editEmitter.event;

  constructor() {
    this.type = vscode.window.createTextEditorDecorationType({
      backgroundColor: new vscode.ThemeColor('dictee.doubtfulWordBackground'),
      border: '1px dotted',
      borderColor: new vscode.ThemeColor('dictee.doubtfulWordBorder'),
      overviewRulerColor: new vscode.ThemeColor('dictee.doubtfulWordBorder'),
      overviewRulerLane: vscode.OverviewRulerLane.Center,
      // Text typed or dictated at either edge of a doubtful word is not marked with it (what drawnRanges.ts assumes).
      rangeBehavior: vscode.DecorationRangeBehavior.OpenOpen,
    });
    this.item = vscode.window.createStatusBarItem('dictee.doubtful', vscode.StatusBarAlignment.Right, 998);
    this.item.name = vscode.l10n.t('Dictée: doubtful words');
    this.item.command = 'dictee.nextDoubtfulWord';
    this.listeners = [
      vscode.workspace.onDidChangeTextDocument((e) => {
        const marks = this.docs.get(e.document.uri.toString());
        if (!marks || e.contentChanges.length === 0) return;
        const before = marks.count;
        const changes = textChanges(e);
        marks.changed(changes);
        // What each editor of the document shows now: its marks, moved by the editor itself (the hovers,
        // made when asked, carry no offsets: marks that only moved are not sent again).
        for (const editor of vscode.window.visibleTextEditors) {
          const drawn = this.drawn.get(editor);
          if (drawn && drawn.doc === e.document.uri.toString()) {
            const moved = moveDrawn(drawn.ranges, changes);
            if (moved) drawn.ranges = moved;
            else this.drawn.delete(editor);
          }
        }
        this.render(e.document.uri, marks.count !== before);
        this.editEmitter.fire(e.document);
      }),
      vscode.window.onDidChangeVisibleTextEditors(() => this.renderAll()),
      // A mark's hover is made when the pointer rests on it: the decorations carry ranges only.
      vscode.languages.registerHoverProvider('*', { provideHover: (doc, pos) => this.hover(doc, pos) }),
      vscode.window.onDidChangeActiveTextEditor(() => this.showCount()),
      vscode.workspace.onDidCloseTextDocument((d) => {
        const uri = d.uri.toString();
        // Changing a document's language closes and reopens it at once: its marks stay.
        setTimeout(() => {
          if (vscode.workspace.textDocuments.some((t) => t.uri.toString() === uri && !t.isClosed)) return;
          if (this.docs.delete(uri)) this.changeEmitter.fire(d.uri);
          this.showCount();
        }, REOPEN_GRACE_MS);
      }),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (!e.affectsConfiguration('dictee.proofreading.threshold')) return;
        // 0 turns marking off: the marks shown go too.
        if (threshold() === 0) this.clearAll();
      }),
    ];
  }

  /** The marks of `doc`, created (with `threshold`) when it has none yet. */
  marksFor(doc: vscode.TextDocument, threshold: number): ProofMarks {
    const key = doc.uri.toString();
    let marks = this.docs.get(key);
    if (marks) marks.setThreshold(threshold);
    else this.docs.set(key, (marks = new ProofMarks(threshold)));
    return marks;
  }

  /** The marks of `doc`, if Dictée dictated in it. */
  marksOf(doc: vscode.TextDocument): ProofMarks | undefined {
    return this.docs.get(doc.uri.toString());
  }

  /** Draws the marks of `uri` again (after a chunk was placed); `changed`: the count may have changed. */
  render(uri: vscode.Uri, changed = true): void {
    const marks = this.docs.get(uri.toString());
    for (const editor of vscode.window.visibleTextEditors) {
      if (editor.document.uri.toString() === uri.toString()) this.draw(editor, marks);
    }
    if (changed) {
      this.showCount();
      this.changeEmitter.fire(uri);
    }
  }

  /** Next or Previous Doubtful Word: selects it in the active editor. */
  go(direction: 'next' | 'previous'): void {
    const editor = vscode.window.activeTextEditor;
    const marks = editor && this.docs.get(editor.document.uri.toString());
    const from = editor ? editor.document.offsetAt(editor.selection.start) : 0;
    const mark = marks && (direction === 'next' ? marks.next(from) : marks.previous(from));
    if (!editor || !mark) {
      void vscode.window.showInformationMessage(vscode.l10n.t('Dictée: no doubtful words in this document.'));
      return;
    }
    this.select(editor, mark);
  }

  /** Accept Doubtful Word: the mark at the cursor is right as it is, and the next one is selected; or mark `id` (a link), the cursor left. */
  accept(id?: string): void {
    const editor = vscode.window.activeTextEditor;
    const marks = editor && this.docs.get(editor.document.uri.toString());
    if (!editor || !marks) return;
    const sel = editor.selection;
    const mark = id
      ? marks.list().find((m) => m.id === id)
      : marks.at(editor.document.offsetAt(sel.start), editor.document.offsetAt(sel.end));
    if (!mark) {
      void vscode.window.showInformationMessage(vscode.l10n.t('Dictée: the cursor is not on a doubtful word.'));
      return;
    }
    marks.accept(mark.id);
    this.render(editor.document.uri);
    // From the keyboard, reviewing goes on at the next one; a hover's or a quick fix's link leaves the cursor.
    const next = id ? undefined : marks.next(mark.start);
    if (next) this.select(editor, next);
  }

  private select(editor: vscode.TextEditor, mark: DoubtfulMark): void {
    const d = editor.document;
    const range = new vscode.Range(d.positionAt(mark.start), d.positionAt(mark.end));
    editor.selection = new vscode.Selection(range.start, range.end);
    editor.revealRange(range, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
  }

  private draw(editor: vscode.TextEditor, marks: ProofMarks | undefined): void {
    const d = editor.document;
    const list = marks?.list() ?? [];
    const ranges = list.map((m): DrawnRange => [m.start, m.end]);
    // The marks where the editor shows them already: nothing to send.
    const drawn = this.drawn.get(editor);
    if (drawn && drawn.doc === d.uri.toString() && sameDrawn(drawn.ranges, ranges)) return;
    this.drawn.set(editor, { doc: d.uri.toString(), ranges });
    editor.setDecorations(
      this.type,
      list.map((m) => new vscode.Range(d.positionAt(m.start), d.positionAt(m.end))),
    );
  }

  /** The hover of the mark under the pointer: how sure the engine was, and links to accept, correct or play it. */
  private hover(d: vscode.TextDocument, pos: vscode.Position): vscode.Hover | undefined {
    const marks = this.docs.get(d.uri.toString());
    if (!marks || marks.count === 0) return undefined;
    const at = d.offsetAt(pos);
    const m = marks.at(at, at);
    if (!m) return undefined;
    const args = encodeURIComponent(JSON.stringify([m.id]));
    const range = encodeURIComponent(JSON.stringify([d.uri.toString(), m.start, m.end]));
    const text = new vscode.MarkdownString(
      `${vscode.l10n.t('Dictée: doubtful word (the engine was {0}% sure).', Math.round(m.confidence * 100))}\n\n` +
        `[${vscode.l10n.t('Accept')}](command:dictee.acceptDoubtfulWord?${args}) · [${vscode.l10n.t('Correct That')}](command:dictee.correctRange?${range}) · [${vscode.l10n.t('Play Back')}](command:dictee.playRange?${range})`,
    );
    text.isTrusted = { enabledCommands: HOVER_COMMANDS };
    return new vscode.Hover(text, new vscode.Range(d.positionAt(m.start), d.positionAt(m.end)));
  }

  private renderAll(): void {
    for (const editor of vscode.window.visibleTextEditors) this.draw(editor, this.docs.get(editor.document.uri.toString()));
    this.showCount();
  }

  private clearAll(): void {
    const uris = [...this.docs.keys()];
    this.docs.clear();
    this.renderAll();
    for (const u of uris) this.changeEmitter.fire(vscode.Uri.parse(u));
  }

  private showCount(): void {
    const doc = vscode.window.activeTextEditor?.document;
    const count = doc ? (this.docs.get(doc.uri.toString())?.count ?? 0) : 0;
    const view = doubtfulView(vscode.l10n, count);
    const next = {
      text: view?.text ?? '',
      tooltip: view?.tooltip ?? '',
      label: view?.accessibilityLabel ?? '',
      visible: !!view,
      context: count > 0,
    };
    // The context key and the item change only when what they show does (each is a round trip to the editor's window).
    const last = this.shownCount;
    this.shownCount = next;
    if (!last || last.context !== next.context) void vscode.commands.executeCommand('setContext', 'dictee.hasDoubtfulWords', next.context);
    if (!view) {
      if (!last || last.visible) this.item.hide();
      return;
    }
    if (last && last.visible && last.text === next.text && last.tooltip === next.tooltip && last.label === next.label) return;
    this.item.text = view.text;
    this.item.tooltip = view.tooltip;
    this.item.accessibilityInformation = { label: view.accessibilityLabel, role: 'button' };
    this.item.show();
  }

  dispose(): void {
    for (const l of this.listeners) l.dispose();
    this.changeEmitter.dispose();
    this.editEmitter.dispose();
    this.type.dispose();
    this.item.dispose();
  }
}

/** `dictee.proofreading.threshold` as set now. */
function threshold(): number {
  const v = vscode.workspace.getConfiguration('dictee').get<number>('proofreading.threshold');
  return typeof v === 'number' && Number.isFinite(v) ? v : DEFAULT_PROOFREADING_THRESHOLD;
}
