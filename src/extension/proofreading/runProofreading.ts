/**
 * What one dictation run tells the proofreading: each final chunk with its words and alternatives
 * (`details`), placed where the writer wrote it once its edit is done. The writer tells where the last
 * chunk written with text stands (`onDidWriteLast`); a chunk that wrote nothing of its own (a command)
 * finds its predecessor's range there and is not placed (ProofMarks.place).
 */
import type * as vscode from 'vscode';
import { matchCommand, TABLES, type DictationAction, type Language } from '../../dictation';
import type { ProofMarks } from '../../client/proofreading/proofMarks';
import { LanguageDoubt } from '../../client/proofreading/languageDoubt';
import type { TranscriptOp } from '../../client/transcript';
import type { BatchReplaceMessage, TranscriptMessage, WordDetail } from '../../protocol/messages';
import type { DoubtfulWords } from './doubtfulWords';
import type { WriteOutcome } from '../editor/documentWriter';

/** The correction commands (said alone) that the proofreading runs, not the writer. */
const CORRECTIONS: ReadonlySet<DictationAction['kind']> = new Set(['correctThat', 'chooseAlternative', 'correctWords', 'spellThat']);

/** The correction command chunk text `text` is, said alone in `language`; undefined for anything else. */
export function correctionCommand(text: string, language: Language): DictationAction | undefined {
  const a = matchCommand(text, TABLES[language], []);
  return a && CORRECTIONS.has(a.kind) ? a : undefined;
}

/** The final chunk a message carries, with what it says beyond the text; undefined for anything else. */
export function finalDetails(
  m: TranscriptMessage | BatchReplaceMessage,
): { id: string; words: WordDetail[]; alternatives: string[]; span?: { startMs: number; endMs: number } } | undefined {
  const c = m.type === 'transcript' ? m : m.data.new_chunk;
  if (c.status !== 'final') return undefined;
  const words = Array.isArray(c.words) ? c.words : [];
  const startMs = typeof c.start_ms === 'number' ? c.start_ms : words[0]?.start_ms;
  const endMs = typeof c.end_ms === 'number' ? c.end_ms : words[words.length - 1]?.end_ms;
  return {
    id: c.id,
    words,
    alternatives: Array.isArray(c.alternatives) ? c.alternatives.filter((a) => typeof a === 'string') : [],
    ...(startMs !== undefined && endMs !== undefined && endMs > startMs ? { span: { startMs, endMs } } : {}),
  };
}

export class RunProofreading {
  private last: { start: number; end: number } | undefined;
  private readonly doubt = new LanguageDoubt();

  constructor(
    private readonly runId: number,
    private readonly doc: () => vscode.TextDocument,
    private readonly marks: ProofMarks,
    private readonly words: DoubtfulWords,
    /** With the dictation grammar: its language, and what runs the correction commands said alone. */
    private readonly commands?: { language: Language; run: (a: DictationAction) => void },
    /** Several utterances in a row came back with very low confidence (told once per run). */
    private readonly wrongLanguage?: () => void,
    /** The run's audio (Play Back): which service session the chunks' times are in. */
    private readonly audio?: { generation: number },
  ) {}

  /** Chunk ids of different runs never meet in one document. */
  private key(id: string): string {
    return `${this.runId}:${id}`;
  }

  /** A message was applied (`ops`); `written` resolves once the writer has made its edits. */
  message(m: TranscriptMessage | BatchReplaceMessage, ops: readonly TranscriptOp[], written: Promise<WriteOutcome>): void {
    // A correction said alone writes nothing (the grammar's rule): it runs once the writer is done.
    const commands = this.commands;
    if (commands) {
      for (const op of ops) {
        const a = op.kind === 'insert' ? correctionCommand(op.text, commands.language) : undefined;
        if (a) void written.then(() => commands.run(a));
      }
    }
    const details = finalDetails(m);
    // The engine's first reading of each utterance (a proofread rewrite of the same words is not counted twice).
    if (details && m.type === 'transcript' && this.doubt.push(details.words)) this.wrongLanguage?.();
    const op = details && ops.find((o) => o.kind !== 'provisional' && o.id === details.id && o.text.trim() !== '');
    const replaces = ops.filter((o) => o.kind === 'replace');
    if (replaces.length === 0 && !op) return;
    // The service session the chunk's times are in: the one that sent it.
    const generation = this.audio?.generation;
    const targets = replaces.flatMap((o) => o.targetIds.map((t) => this.key(t)));
    // Text a person changed is not rewritten by the writer: its marks are not replaced either.
    const kept = targets.some((t) => this.marks.chunk(t)?.edited);
    void written.then(({ refused }) => {
      // A rewrite the document did not take (a command or deleted text among its chunks, chunks apart):
      // the text stays as it was, and so do its marks.
      if (replaces.some((o) => refused.has(o.id))) {
        this.words.render(this.doc().uri);
        return;
      }
      // A rewrite stands where its targets' text was: the edit that replaced it swallowed their ranges.
      const rewritten = op?.kind === 'replace' && !kept ? this.marks.spanOf(op.targetIds.map((t) => this.key(t))) : undefined;
      this.marks.forget(targets);
      // A new chunk: where the writer says its last chunk with text now stands.
      const r = op?.kind === 'replace' ? rewritten : this.last;
      if (details && op && r && r.end > r.start) {
        const audio = generation !== undefined && details.span ? { run: this.runId, generation, ...details.span } : undefined;
        this.marks.place(this.key(details.id), r.start, r.end, this.text(r.start, r.end), {
          words: details.words,
          alternatives: details.alternatives,
          ...(audio ? { audio } : {}),
        });
      }
      this.words.render(this.doc().uri);
    });
  }

  /** The writer's last chunk with text stands at `[start, end)` now (after each of its edits). */
  lastWritten(start: number, end: number): void {
    this.last = { start, end };
    // Words the grammar held back, written after their chunk: that chunk grew.
    if (this.marks.grew(start, end, () => this.text(start, end))) this.words.render(this.doc().uri);
  }

  private text(start: number, end: number): string {
    const d = this.doc();
    return d.getText().slice(start, end);
  }
}
