/**
 * What one dictation run tells the proofreading: each final chunk with its words and alternatives
 * (`details`), placed where the writer wrote it once its edit is done. The writer tells where the last
 * chunk written with text stands (`onDidWriteLast`); a chunk that wrote nothing of its own (a command)
 * finds its predecessor's range there and is not placed (ProofMarks.place).
 */
import type * as vscode from 'vscode';
import type { ProofMarks } from '../../client/proofreading/proofMarks';
import type { TranscriptOp } from '../../client/transcript';
import type { BatchReplaceMessage, TranscriptMessage, Word } from '../../protocol/messages';
import type { DoubtfulWords } from './doubtfulWords';

/** The final chunk a message carries, with what it says beyond the text; undefined for anything else. */
export function finalDetails(m: TranscriptMessage | BatchReplaceMessage): { id: string; words: Word[]; alternatives: string[] } | undefined {
  const c = m.type === 'transcript' ? m : m.data.new_chunk;
  if (c.status !== 'final') return undefined;
  return { id: c.id, words: Array.isArray(c.words) ? c.words : [], alternatives: Array.isArray(c.alternatives) ? c.alternatives.filter((a) => typeof a === 'string') : [] };
}

export class RunProofreading {
  private last: { start: number; end: number } | undefined;

  constructor(
    private readonly runId: number,
    private readonly doc: () => vscode.TextDocument,
    private readonly marks: ProofMarks,
    private readonly words: DoubtfulWords,
  ) {}

  /** Chunk ids of different runs never meet in one document. */
  private key(id: string): string {
    return `${this.runId}:${id}`;
  }

  /** A message was applied (`ops`); `written` resolves once the writer has made its edits. */
  message(m: TranscriptMessage | BatchReplaceMessage, ops: readonly TranscriptOp[], written: Promise<void>): void {
    const replaced = ops.flatMap((op) => (op.kind === 'replace' ? op.targetIds.filter((t) => t !== op.id) : []));
    const details = finalDetails(m);
    const op = details && ops.find((o) => o.kind !== 'provisional' && o.id === details.id && o.text.trim() !== '');
    if (replaced.length === 0 && !op) return;
    void written.then(() => {
      this.marks.forget(replaced.map((t) => this.key(t)));
      const r = this.last;
      if (details && op && r && r.end > r.start) {
        this.marks.place(this.key(details.id), r.start, r.end, this.text(r.start, r.end), details);
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
