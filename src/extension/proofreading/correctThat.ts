/**
 * Correct That: a pick list of the engine's other readings (`alternatives`) of the selection or of the
 * last utterance, each applied in one undo step; the list is picked from by keyboard or by voice
 * ("choose two"). "Correct <words>" selects the last place those words were dictated and opens the list
 * for them; "spell that <letters>" writes the letters in place of the selection or of the last utterance.
 * The logic is in client/proofreading/readings.ts; readings go through the dictation grammar when it is
 * on, against the text around them. Words typed in the list's box are offered as the first row ("Use:
 * …") and replace the words corrected as typed (client/proofreading/typedCorrection.ts), even when the
 * engine has no other reading.
 */
import * as vscode from 'vscode';
import type { DictationAction, FormatOptions } from '../../dictation';
import type { PlacedChunk } from '../../client/proofreading/proofMarks';
import {
  lastOccurrence,
  letteredWords,
  readingEdit,
  readingRow,
  readings,
  wordsIn,
  type ChunkEdit,
} from '../../client/proofreading/readings';
import { typedEdit } from '../../client/proofreading/typedCorrection';
import type { DoubtfulWords } from './doubtfulWords';
import { formatReading } from './readingText';

interface ReadingItem extends vscode.QuickPickItem {
  edit: ChunkEdit;
}

/** The row of the words typed in the box: shown whatever the filter, first. */
function typedItem(written: string, typed: string, selection: { start: number; end: number } | undefined): ReadingItem | undefined {
  const edit = typedEdit(written, typed, selection);
  if (!edit) return undefined;
  return {
    label: vscode.l10n.t('Use: {0}', edit.text),
    description: vscode.l10n.t('your own words, written as typed'),
    alwaysShow: true,
    edit,
  };
}

/** What the list corrects: a chunk, as its text was when the list opened. */
interface Target {
  editor: vscode.TextEditor;
  chunk: PlacedChunk;
  written: string;
}

export class CorrectThat implements vscode.Disposable {
  /** The list shown; `readings`: its numbered rows (what "choose two" picks from). */
  private open: { pick: vscode.QuickPick<ReadingItem>; target: Target; readings: ReadingItem[] } | undefined;

  constructor(
    private readonly words: DoubtfulWords,
    /** The grammar's options for text written into `doc`, when the grammar is on. */
    private readonly grammar: (doc: vscode.TextDocument) => FormatOptions | undefined,
  ) {}

  /** The command: the selection's readings, or (no selection) the last utterance's. */
  async correct(editor = vscode.window.activeTextEditor): Promise<void> {
    if (!editor) return;
    const target = this.target(editor);
    if (!target) return;
    const { chunk, written } = target;
    const d = editor.document;
    const sel = editor.selection;
    const w = letteredWords(chunk.words.length > 0 ? chunk.words : written.split(/\s+/u).map((text) => ({ text, confidence: 1 })));
    const selected = sel.isEmpty ? undefined : wordsIn(written, w, d.offsetAt(sel.start) - chunk.start, d.offsetAt(sel.end) - chunk.start);
    const list = readings(
      w.map((x) => x.text),
      chunk.alternatives,
      selected,
    );
    const selection = sel.isEmpty ? undefined : { start: d.offsetAt(sel.start) - chunk.start, end: d.offsetAt(sel.end) - chunk.start };
    this.close();
    const pick = vscode.window.createQuickPick<ReadingItem>();
    pick.title = vscode.l10n.t('Dictée: Correct That');
    // No other reading: the box still takes the user's own words.
    pick.placeholder =
      list.length === 0
        ? vscode.l10n.t('The engine has no other reading of this: type the right words, then Enter')
        : vscode.l10n.t('Pick the right reading, say “choose two”, or type the right words');
    // Each row shows what it changes (not the whole sentence), once.
    const rows = new Map<string, { row: ReturnType<typeof readingRow>; edit: ChunkEdit }>();
    for (const r of list) {
      const edit = this.formatted(d, chunk.start, readingEdit(written, w, r));
      const row = readingRow(written, w, r, edit);
      const id = `${row.kind}:${row.words}`;
      if (!rows.has(id)) rows.set(id, { row, edit });
    }
    const readingItems: ReadingItem[] = [...rows.values()].map(({ row, edit }, i) => ({
      label: `${i + 1}. ${row.kind === 'delete' ? `${vscode.l10n.t('(delete these words)')} ${row.words}` : row.words}`,
      description: row.context,
      edit,
    }));
    pick.items = readingItems;
    // The words typed: offered first ("Use: …"), whatever VS Code's filter makes of the readings.
    pick.onDidChangeValue((typed) => {
      const own = typedItem(written, typed, selection);
      pick.items = own ? [own, ...readingItems] : readingItems;
      if (own) pick.activeItems = [own];
    });
    this.open = { pick, target, readings: readingItems };
    pick.onDidAccept(() => {
      const item = pick.selectedItems[0];
      this.close();
      if (item) void this.apply(target, item.edit);
    });
    pick.onDidHide(() => {
      if (this.open?.pick === pick) this.open = undefined;
      pick.dispose();
    });
    pick.show();
  }

  /** The quick fix of a doubtful word in the Problems panel: `[start, end)` of `uri` selected, then corrected. */
  async correctRange(uri: vscode.Uri, start: number, end: number): Promise<void> {
    const doc = await vscode.workspace.openTextDocument(uri);
    const editor = await this.editorOf(doc);
    editor.selection = new vscode.Selection(doc.positionAt(start), doc.positionAt(end));
    await this.correct(editor);
  }

  /** "Choose <n>": reading `n` of the list shown. */
  choose(n: number): void {
    const open = this.open;
    const item = open?.readings[n - 1];
    if (!open || !item) {
      void vscode.window.showInformationMessage(
        open
          ? vscode.l10n.t('Dictée: the list has no reading {0}.', n)
          : vscode.l10n.t('Dictée: no list of readings is open; say “correct that” first.'),
      );
      return;
    }
    this.close();
    void this.apply(open.target, item.edit);
  }

  /** A correction command said alone during a run into `doc`. */
  async spoken(doc: vscode.TextDocument, a: DictationAction): Promise<void> {
    switch (a.kind) {
      case 'correctThat':
        await this.correct(await this.editorOf(doc));
        break;
      case 'chooseAlternative':
        this.choose(a.choice);
        break;
      case 'correctWords':
        await this.correctWords(doc, a.words);
        break;
      case 'spellThat':
        await this.spell(doc, a.letters);
        break;
      default:
        break;
    }
  }

  /** "Correct <words>": the last place they were dictated is selected, then its readings offered. */
  private async correctWords(doc: vscode.TextDocument, said: string): Promise<void> {
    const marks = this.words.marksOf(doc);
    const found = marks && lastOccurrence(doc.getText(), said, marks.dictated());
    if (!found) {
      void vscode.window.showInformationMessage(vscode.l10n.t('Dictée: those words are not in what was dictated here.'));
      return;
    }
    const editor = await this.editorOf(doc);
    editor.selection = new vscode.Selection(doc.positionAt(found.start), doc.positionAt(found.end));
    editor.revealRange(editor.selection, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
    await this.correct(editor);
  }

  /** "Spell that <letters>": the letters replace what the open list corrects, the selection, or the last utterance. */
  private async spell(doc: vscode.TextDocument, letters: string): Promise<void> {
    const open = this.open;
    this.close();
    const editor = open?.target.editor ?? (await this.editorOf(doc));
    const sel = editor.selection;
    let start: number;
    let end: number;
    if (!sel.isEmpty) {
      start = doc.offsetAt(sel.start);
      end = doc.offsetAt(sel.end);
    } else {
      const target = open?.target ?? this.target(editor);
      if (!target) return;
      start = target.chunk.start;
      end = target.chunk.end;
    }
    // What was there keeps the spaces around it.
    const old = doc.getText().slice(start, end);
    const text = `${/^\s*/u.exec(old)![0]}${letters}${/\s*$/u.exec(old)![0]}`;
    await this.replace(editor, start, end, text);
  }

  /** The chunk the selection is in, or the last utterance; told when there is none. */
  private target(editor: vscode.TextEditor): Target | undefined {
    const d = editor.document;
    const marks = this.words.marksOf(d);
    const sel = editor.selection;
    const chunk = marks && (sel.isEmpty ? marks.lastChunk() : marks.chunkAt(d.offsetAt(sel.start), d.offsetAt(sel.end)));
    if (!chunk) {
      void vscode.window.showInformationMessage(
        sel.isEmpty
          ? vscode.l10n.t('Dictée: nothing dictated here has other readings.')
          : vscode.l10n.t('Dictée: select words of one dictated sentence.'),
      );
      return undefined;
    }
    return { editor, chunk, written: d.getText().slice(chunk.start, chunk.end) };
  }

  /** The reading through the grammar (when it is on), against the text around it. */
  private formatted(d: vscode.TextDocument, chunkStart: number, e: ChunkEdit): ChunkEdit {
    return formatReading(d.getText(), chunkStart, e, this.grammar(d));
  }

  /** Applies a reading, unless the chunk's text changed since the list opened. */
  private async apply(target: Target, e: ChunkEdit): Promise<void> {
    const { editor, chunk, written } = target;
    const now = this.words.marksOf(editor.document)?.chunk(chunk.id);
    if (!now || editor.document.getText().slice(now.start, now.end) !== written) {
      void vscode.window.showInformationMessage(vscode.l10n.t('Dictée: the text changed meanwhile; say “correct that” again.'));
      return;
    }
    await this.replace(editor, now.start + e.start, now.start + e.end, e.text);
  }

  /** One edit, one undo step; the new text is selected. */
  private async replace(editor: vscode.TextEditor, start: number, end: number, text: string): Promise<void> {
    const d = editor.document;
    const range = new vscode.Range(d.positionAt(start), d.positionAt(end));
    const ok = await editor.edit((b) => b.replace(range, text), { undoStopBefore: true, undoStopAfter: true });
    if (!ok) {
      void vscode.window.showWarningMessage(vscode.l10n.t('Dictée: the correction could not be made.'));
      return;
    }
    const lead = text.length - text.trimStart().length;
    const tail = text.length - text.trimEnd().length;
    editor.selection = new vscode.Selection(d.positionAt(start + lead), d.positionAt(start + text.length - tail));
  }

  /** An editor showing `doc` (shown if it is not). */
  private async editorOf(doc: vscode.TextDocument): Promise<vscode.TextEditor> {
    const active = vscode.window.activeTextEditor;
    if (active?.document === doc) return active;
    return vscode.window.visibleTextEditors.find((e) => e.document === doc) ?? vscode.window.showTextDocument(doc);
  }

  private close(): void {
    const open = this.open;
    this.open = undefined;
    open?.pick.hide();
  }

  dispose(): void {
    this.close();
  }
}
