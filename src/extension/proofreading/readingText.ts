/**
 * A reading of Correct That as it is written: through the dictation grammar (when it is on), against the
 * document's text around the place it goes, as dictated text would be. Pure (no `vscode`).
 */
import { formatText, type FormatOptions } from '../../dictation';
import type { ChunkEdit } from '../../client/proofreading/readings';

/** `e` (offsets in the chunk that starts at `chunkStart` of `text`) with its text formatted. */
export function formatReading(text: string, chunkStart: number, e: ChunkEdit, options: FormatOptions | undefined): ChunkEdit {
  if (!options || e.text.trim() === '') return e;
  const at = chunkStart + e.start;
  const end = chunkStart + e.end;
  const ctx = { before: text.slice(Math.max(0, at - 80), at), after: text.slice(end, end + 8) };
  return { ...e, text: formatText(e.text.trim(), options, ctx) };
}
