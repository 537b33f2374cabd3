/**
 * The commands of templates and fields, from the palette or the keyboard: "Insert Template…" (a quick
 * pick of the built-in and the user's templates of the dictation language), "Next Field", "Previous
 * Field", "Accept Defaults", and "What Can I Say?" (the spoken commands of the language, from the
 * grammar's own tables). In a document a run dictates into, they act through the run (its queue of
 * edits), and the field they select becomes where the dictation goes.
 */
import * as vscode from 'vscode';
import { acceptDefaults, nextField, parseFields, previousField, spokenCommands, TABLES, templateInsertion, type Language, type Template } from '../../dictation';
import type { DictatedChunks } from '../editor/dictatedChunks';
import type { FieldWarnings } from './fieldWarnings';
import { spokenRows } from '../ui/spokenCommandsText';
import type { TemplateStore } from './templateStore';

/** What the commands need from the state of dictation. */
interface DictationState {
  /** The grammar writer of the run that dictates into `doc`, if one does. */
  dictationIn(doc: vscode.TextDocument): DictatedChunks | undefined;
  /** The language dictated in (the run's, else the settings'). */
  language(): Language;
}

/** A short note in the status bar (keyboard commands that have nothing to do). */
function note(text: string): void {
  vscode.window.setStatusBarMessage(`$(info) ${text}`, 4000);
}

function selectionOffsets(editor: vscode.TextEditor): { start: number; end: number } {
  return { start: editor.document.offsetAt(editor.selection.start), end: editor.document.offsetAt(editor.selection.end) };
}

function select(editor: vscode.TextEditor, start: number, end: number): void {
  const d = editor.document;
  editor.selection = new vscode.Selection(d.positionAt(start), d.positionAt(end));
  editor.revealRange(editor.selection, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
}

export class TemplateCommands {
  constructor(
    private readonly state: DictationState,
    private readonly store: TemplateStore,
    private readonly fields: FieldWarnings,
  ) {}

  /** "Insert Template…": a quick pick; the template goes at the selection (a new Markdown document without an editor). */
  async insertTemplate(): Promise<void> {
    await this.store.ready();
    const language = this.state.language();
    const templates = this.store.forLanguage(language);
    if (templates.length === 0) {
      void vscode.window.showWarningMessage(vscode.l10n.t('Dictée: no template for {0}. Add Markdown files to the folder of dictee.templates.folder.', TABLES[language].name));
      return;
    }
    const picked = await vscode.window.showQuickPick(
      templates.map((t) => ({
        label: t.name,
        description: t.source === 'user' ? vscode.l10n.t('yours') : vscode.l10n.t('built-in'),
        detail: t.path,
        template: t,
      })),
      { title: vscode.l10n.t('Dictée: Insert Template'), placeHolder: vscode.l10n.t('Template or auto-text to insert ({0})', TABLES[language].name), matchOnDetail: true },
    );
    if (picked) await this.insert(picked.template);
  }

  private async insert(template: Template): Promise<void> {
    let editor = vscode.window.activeTextEditor;
    if (!editor) {
      const doc = await vscode.workspace.openTextDocument({ content: '', language: 'markdown' });
      editor = await vscode.window.showTextDocument(doc);
    }
    const doc = editor.document;
    this.fields.watch(doc);
    const at = selectionOffsets(editor);
    const run = this.state.dictationIn(doc);
    if (run) {
      await run.insertTemplate(template, at);
      return;
    }
    const eol = doc.eol === vscode.EndOfLine.CRLF ? '\r\n' : '\n';
    const before = doc.getText(new vscode.Range(doc.positionAt(Math.max(0, at.start - 2)), doc.positionAt(at.start))).replace(/\r\n?/gu, '\n');
    const ins = templateInsertion('insertTemplate', at.start === 0 ? '' : before, template.content);
    const toDoc = (n: number): number => ins.text.slice(0, n).replace(/\n/gu, eol).length;
    const range = new vscode.Range(doc.positionAt(at.start), doc.positionAt(at.end));
    if (!(await editor.edit((b) => b.replace(range, ins.text.replace(/\n/gu, eol))))) {
      void vscode.window.showWarningMessage(vscode.l10n.t('Dictée: the template could not be inserted (the document changed meanwhile). Try again.'));
      return;
    }
    select(editor, at.start + toDoc(ins.select.start), at.start + toDoc(ins.select.end));
  }

  /** "Next Field" / "Previous Field" in the active editor (or in `doc`, from a warning's button). */
  async field(direction: 'next' | 'previous', doc?: vscode.TextDocument): Promise<void> {
    let editor = vscode.window.activeTextEditor;
    if (doc && editor?.document !== doc) editor = await vscode.window.showTextDocument(doc);
    if (!editor) {
      note(vscode.l10n.t('Open a document with template fields first.'));
      return;
    }
    const from = selectionOffsets(editor);
    const run = this.state.dictationIn(editor.document);
    if (run) {
      await run.selectField(direction, from);
      return;
    }
    const text = editor.document.getText();
    // From a warning: when no field follows the cursor, the first one of the document.
    const f = direction === 'next' ? (nextField(text, from.end) ?? (doc ? (parseFields(text)[0] ?? null) : null)) : previousField(text, from.start);
    if (!f) {
      note(direction === 'next' ? vscode.l10n.t('No template field after the cursor.') : vscode.l10n.t('No template field before the cursor.'));
      return;
    }
    select(editor, f.start, f.end);
  }

  /** "Accept Defaults": every field left in the active editor takes its default, in one undo step. */
  async acceptDefaults(): Promise<void> {
    const editor = vscode.window.activeTextEditor;
    if (!editor) {
      note(vscode.l10n.t('Open a document with template fields first.'));
      return;
    }
    const run = this.state.dictationIn(editor.document);
    if (run) {
      await run.acceptDefaults();
      return;
    }
    const d = editor.document;
    const edits = acceptDefaults(d.getText()).edits;
    if (edits.length === 0) {
      note(vscode.l10n.t('No template fields are left.'));
      return;
    }
    const ok = await editor.edit((b) => {
      for (const e of edits) b.replace(new vscode.Range(d.positionAt(e.offset), d.positionAt(e.offset + e.length)), e.text);
    });
    if (!ok) void vscode.window.showWarningMessage(vscode.l10n.t('Dictée: the fields could not be filled (the document changed meanwhile). Try again.'));
  }

  /** "What Can I Say?": the spoken commands of the language dictated in. */
  async whatCanISay(): Promise<void> {
    const table = TABLES[this.state.language()];
    const items: vscode.QuickPickItem[] = spokenRows(vscode.l10n, spokenCommands(table)).map(({ separator, ...row }) =>
      separator ? { label: row.label, kind: vscode.QuickPickItemKind.Separator } : row,
    );
    await vscode.window.showQuickPick(items, {
      title: vscode.l10n.t('Dictée: what you can say ({0})', table.name),
      placeHolder: vscode.l10n.t('Search what you can say'),
      matchOnDescription: true,
      matchOnDetail: true,
    });
  }
}
