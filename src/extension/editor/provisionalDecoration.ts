/**
 * The provisional text of a run (what the service is still unsure of), drawn as a decoration at the
 * insertion point of the target document, never in its text.
 */
import * as vscode from 'vscode';
import { displayProvisional, provisionalRoom } from './provisionalText';

/**
 * The provisional text (what the service is still unsure of), shown as `after` content at the
 * insertion point in every visible editor of the target document, in the themeable colour
 * `dictee.provisionalForeground`: its last words when it would run past the editor's right edge
 * (provisionalText.ts), the whole text in the hover. Updates are throttled; the decoration type is created once here and
 * disposed with the class.
 */
export class ProvisionalDecoration implements vscode.Disposable {
  private readonly type: vscode.TextEditorDecorationType;
  private pending: { doc: vscode.TextDocument; offset: number; text: string } | undefined;
  private shown: { doc: vscode.TextDocument; offset: number; text: string } | undefined;
  private timer: NodeJS.Timeout | undefined;
  private lastRender = 0;
  /** What the editors were last sent (document, its version, offset, text): the same again is not re-sent. */
  private drawnKey = '';
  /** `editor.wordWrap` and `editor.wordWrapColumn` per document and language, read once (getConfiguration costs per call). */
  private readonly layouts = new Map<string, { wordWrap: string; wordWrapColumn: number }>();
  private readonly listeners: vscode.Disposable[];

  constructor(private readonly throttleMs = 50) {
    this.type = vscode.window.createTextEditorDecorationType({
      after: { color: new vscode.ThemeColor('dictee.provisionalForeground'), fontStyle: 'italic' },
      rangeBehavior: vscode.DecorationRangeBehavior.ClosedClosed,
    });
    this.listeners = [
      // An editor of the target document that becomes visible shows the provisional text too.
      vscode.window.onDidChangeVisibleTextEditors(() => {
        this.drawnKey = '';
        this.render();
      }),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('editor.wordWrap') || e.affectsConfiguration('editor.wordWrapColumn')) this.layouts.clear();
      }),
    ];
  }

  /** Shows `text` at `offset` of `doc` (empty text hides it). */
  show(doc: vscode.TextDocument, offset: number, text: string): void {
    this.pending = { doc, offset, text };
    const wait = this.lastRender + this.throttleMs - Date.now();
    if (wait <= 0 && !this.timer) {
      this.render();
    } else if (!this.timer) {
      this.timer = setTimeout(
        () => {
          this.timer = undefined;
          this.render();
        },
        Math.max(0, wait),
      );
    }
  }

  /** The text currently shown (after throttling), for logs and tests. */
  get text(): string {
    return this.shown?.text ?? '';
  }

  clear(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const doc = this.pending?.doc ?? this.shown?.doc;
    this.pending = doc ? { doc, offset: 0, text: '' } : undefined;
    this.render();
    this.pending = undefined;
    this.shown = undefined;
  }

  private render(): void {
    this.lastRender = Date.now();
    const p = this.pending ?? this.shown;
    if (!p) return;
    this.shown = p;
    // The same text at the same place of the same version of the document: the editors show it already.
    const key = `${p.doc.uri.toString()}\u0000${p.doc.version}\u0000${p.offset}\u0000${p.text}`;
    if (key === this.drawnKey) return;
    this.drawnKey = key;
    for (const editor of vscode.window.visibleTextEditors) {
      if (editor.document.uri.toString() !== p.doc.uri.toString()) continue;
      if (p.text === '') {
        editor.setDecorations(this.type, []);
        continue;
      }
      const pos = p.doc.positionAt(p.offset);
      const layout = this.layoutOf(p.doc);
      // The room left on the screen row: a long provisional text at the end of a long line shows its last words.
      const shown = displayProvisional(p.text, provisionalRoom(pos.character, layout));
      const hover = shown === p.text ? undefined : new vscode.MarkdownString().appendText(p.text);
      editor.setDecorations(this.type, [
        { range: new vscode.Range(pos, pos), hoverMessage: hover, renderOptions: { after: { contentText: shown } } },
      ]);
      // Keep the insertion point in view while the user has not moved away from it (the cursor is on its line).
      if (editor === vscode.window.activeTextEditor && Math.abs(editor.selection.active.line - pos.line) <= 1) {
        const visible = editor.visibleRanges.some((r) => r.contains(pos));
        if (!visible) editor.revealRange(new vscode.Range(pos, pos), vscode.TextEditorRevealType.InCenterIfOutsideViewport);
      }
    }
  }

  private layoutOf(doc: vscode.TextDocument): { wordWrap: string; wordWrapColumn: number } {
    const key = `${doc.languageId}\u0000${doc.uri.toString()}`;
    let layout = this.layouts.get(key);
    if (!layout) {
      const editorSettings = vscode.workspace.getConfiguration('editor', doc);
      layout = {
        wordWrap: editorSettings.get<string>('wordWrap', 'off'),
        wordWrapColumn: editorSettings.get<number>('wordWrapColumn', 80),
      };
      this.layouts.set(key, layout);
    }
    return layout;
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    for (const l of this.listeners) l.dispose();
    this.type.dispose();
  }
}
