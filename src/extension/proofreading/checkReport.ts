/**
 * Check Report: the unfilled template fields, the doubtful words not reviewed and the placeholders left
 * in a report (reportChecks.ts), listed in the Problems panel with quick fixes (accept the word, correct
 * it, take the field's default, remove the placeholder). Run by its command, and again when the user saves
 * a document Dictée dictated into (not Auto Save). While a document's problems are shown, they are
 * checked again as it changes, so that each one goes as it is dealt with.
 */
import * as vscode from 'vscode';
import { reportProblems, reportSummary, type ProblemKind, type ReportProblem } from './reportChecks';
import type { DoubtfulWords } from './doubtfulWords';

const SOURCE = 'Dictée';
/** How long after the last change a shown report is checked again. */
const RECHECK_MS = 400;

function diagnosticOf(range: vscode.Range, problem: ReportProblem): vscode.Diagnostic {
  const d = new vscode.Diagnostic(
    range,
    problem.message,
    problem.kind === 'doubtful' ? vscode.DiagnosticSeverity.Information : vscode.DiagnosticSeverity.Warning,
  );
  d.source = SOURCE;
  d.code = CODES[problem.kind];
  return d;
}

/** A diagnostic's identity as the quick fixes get it back (VS Code may hand over copies). */
function keyOf(code: unknown, r: vscode.Range): string {
  return `${String(code)}@${r.start.line}:${r.start.character}-${r.end.line}:${r.end.character}`;
}

const CODES: Record<ProblemKind, string> = { field: 'unfilled-field', doubtful: 'doubtful-word', placeholder: 'placeholder' };

export class CheckReport implements vscode.Disposable, vscode.CodeActionProvider {
  private readonly diagnostics = vscode.languages.createDiagnosticCollection('dictee');
  private readonly listeners: vscode.Disposable[];
  private readonly savedByUser = new Set<string>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  /** The problems shown for each document, by their diagnostic's identity. */
  private readonly shown = new Map<string, Map<string, ReportProblem>>();

  constructor(private readonly words: DoubtfulWords) {
    this.listeners = [
      vscode.languages.registerCodeActionsProvider({ scheme: '*' }, this, { providedCodeActionKinds: [vscode.CodeActionKind.QuickFix] }),
      vscode.workspace.onWillSaveTextDocument((e) => {
        const key = e.document.uri.toString();
        if (e.reason === vscode.TextDocumentSaveReason.Manual) this.savedByUser.add(key);
        else this.savedByUser.delete(key);
      }),
      vscode.workspace.onDidSaveTextDocument((doc) => {
        const byUser = this.savedByUser.delete(doc.uri.toString());
        if (byUser && this.words.marksOf(doc)) this.check(doc);
      }),
      vscode.workspace.onDidChangeTextDocument((e) => this.recheckSoon(e.document)),
      words.onDidChange((uri) => {
        const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
        if (doc) this.recheckSoon(doc);
      }),
      vscode.workspace.onDidCloseTextDocument((d) => {
        this.diagnostics.delete(d.uri);
        this.shown.delete(d.uri.toString());
      }),
    ];
  }

  /** The command: checks the active document and says what is left (or that nothing is). */
  run(): void {
    const doc = vscode.window.activeTextEditor?.document;
    if (!doc) {
      void vscode.window.showInformationMessage(vscode.l10n.t('Dictée: open the report to check first.'));
      return;
    }
    const problems = this.check(doc);
    const summary = reportSummary(vscode.l10n, problems);
    if (problems.length === 0) {
      void vscode.window.showInformationMessage(summary);
      return;
    }
    void vscode.commands.executeCommand('workbench.actions.view.problems');
    void vscode.window.showWarningMessage(summary);
  }

  /** Checks `doc` and shows its problems. */
  check(doc: vscode.TextDocument): ReportProblem[] {
    const problems = reportProblems(vscode.l10n, doc.getText(), this.words.marksOf(doc)?.list() ?? []);
    const byKey = new Map<string, ReportProblem>();
    const diagnostics = problems.map((p) => {
      const d = diagnosticOf(new vscode.Range(doc.positionAt(p.start), doc.positionAt(p.end)), p);
      byKey.set(keyOf(d.code, d.range), p);
      return d;
    });
    this.shown.set(doc.uri.toString(), byKey);
    this.diagnostics.set(doc.uri, diagnostics);
    return problems;
  }

  /** A document whose problems are shown is checked again shortly after it changes. */
  private recheckSoon(doc: vscode.TextDocument): void {
    const key = doc.uri.toString();
    if (!this.diagnostics.has(doc.uri)) return;
    clearTimeout(this.timers.get(key));
    this.timers.set(
      key,
      setTimeout(() => {
        this.timers.delete(key);
        if (!doc.isClosed) this.check(doc);
      }, RECHECK_MS),
    );
  }

  provideCodeActions(doc: vscode.TextDocument, _range: vscode.Range, context: vscode.CodeActionContext): vscode.CodeAction[] {
    const actions: vscode.CodeAction[] = [];
    const shown = this.shown.get(doc.uri.toString());
    for (const d of context.diagnostics) {
      const p = d.source === SOURCE ? shown?.get(keyOf(d.code, d.range)) : undefined;
      if (!p) continue;
      if (p.kind === 'doubtful' && p.markId) {
        const accept = new vscode.CodeAction(vscode.l10n.t('Accept the word as it is'), vscode.CodeActionKind.QuickFix);
        accept.command = { command: 'dictee.acceptDoubtfulWord', title: accept.title, arguments: [p.markId] };
        accept.diagnostics = [d];
        accept.isPreferred = true;
        const correct = new vscode.CodeAction(vscode.l10n.t('Correct That…'), vscode.CodeActionKind.QuickFix);
        correct.command = { command: 'dictee.correctRange', title: correct.title, arguments: [doc.uri, p.start, p.end] };
        correct.diagnostics = [d];
        const play = new vscode.CodeAction(vscode.l10n.t('Play Back the sentence'), vscode.CodeActionKind.QuickFix);
        play.command = { command: 'dictee.playRange', title: play.title, arguments: [doc.uri, p.start, p.end] };
        play.diagnostics = [d];
        actions.push(accept, correct, play);
      } else if (p.kind === 'field') {
        const fill = new vscode.CodeAction(vscode.l10n.t('Use the default: “{0}”', p.default ?? ''), vscode.CodeActionKind.QuickFix);
        fill.edit = new vscode.WorkspaceEdit();
        fill.edit.replace(doc.uri, d.range, p.default ?? '');
        fill.diagnostics = [d];
        fill.isPreferred = true;
        actions.push(fill);
      } else if (p.kind === 'placeholder') {
        const remove = new vscode.CodeAction(vscode.l10n.t('Remove the placeholder'), vscode.CodeActionKind.QuickFix);
        remove.edit = new vscode.WorkspaceEdit();
        remove.edit.delete(doc.uri, d.range);
        remove.diagnostics = [d];
        actions.push(remove);
      }
    }
    return actions;
  }

  dispose(): void {
    for (const t of this.timers.values()) clearTimeout(t);
    for (const l of this.listeners) l.dispose();
    this.diagnostics.dispose();
  }
}
