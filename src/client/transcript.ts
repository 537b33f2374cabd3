/**
 * The transcript model: fed every `transcript` and `batch.replace` message of a run, it keeps the
 * chunks by id and returns the minimal operations an editor must perform (docs/architecture.md).
 * Pure: no I/O, no `vscode`. Never throws, whatever the order or content of the messages.
 */
import type { BatchReplaceMessage, TranscriptMessage } from '../protocol/messages';
import { joinChunks, joinText } from './format';
import { errorMessage } from '../shared/errors';

export type TranscriptOp =
  | { kind: 'insert'; id: string; text: string; prevId: string | null; nextId: string | null }
  | { kind: 'replace'; targetIds: string[]; id: string; text: string; prevId: string | null; nextId: string | null }
  | { kind: 'provisional'; text: string; afterId: string | null };

/** Why a message changed nothing (for logs). */
export interface IgnoredMessage {
  reason: string;
  seq?: number;
  id?: string;
}

type ChunkState = 'provisional' | 'committed' | 'empty';

interface ChunkRecord {
  id: string;
  generation: number;
  index: number;
  /** Tie-break between equal (generation, index): arrival order. */
  tie: number;
  text: string;
  state: ChunkState;
}

interface CommittedChunk {
  id: string;
  generation: number;
  index: number;
  text: string;
}

export interface TranscriptModelOptions {
  /** Called for every message that is ignored (old seq, malformed, chunk already removed…). */
  onIgnored?: (info: IgnoredMessage) => void;
}

function compare(a: ChunkRecord, b: ChunkRecord): number {
  return a.generation - b.generation || a.index - b.index || a.tie - b.tie;
}

/** A list kept sorted by (generation, index, tie). Appending in order is the fast path. */
class SortedChunks {
  readonly items: ChunkRecord[] = [];

  /** First position whose item is not before `c`. */
  lowerBound(c: ChunkRecord): number {
    const items = this.items;
    const n = items.length;
    if (n === 0 || compare(items[n - 1]!, c) < 0) return n;
    let lo = 0;
    let hi = n;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (compare(items[mid]!, c) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  insert(c: ChunkRecord): number {
    const pos = this.lowerBound(c);
    if (pos === this.items.length) this.items.push(c);
    else this.items.splice(pos, 0, c);
    return pos;
  }

  remove(c: ChunkRecord): boolean {
    const pos = this.lowerBound(c);
    if (this.items[pos] === c) {
      this.items.splice(pos, 1);
      return true;
    }
    const i = this.items.indexOf(c); // only if keys were changed behind our back
    if (i >= 0) {
      this.items.splice(i, 1);
      return true;
    }
    return false;
  }

  indexOf(c: ChunkRecord): number {
    const pos = this.lowerBound(c);
    return this.items[pos] === c ? pos : this.items.indexOf(c);
  }
}

export class TranscriptModel {
  private generationNo = 0;
  private readonly lastSeq = new Map<number, number>();
  private readonly chunks = new Map<string, ChunkRecord>();
  private readonly removed = new Set<string>();
  private readonly committed = new SortedChunks();
  private readonly provisional = new SortedChunks();
  private tieCounter = 0;
  private shownProvisional = { text: '', afterId: null as string | null };
  private readonly onIgnored: (info: IgnoredMessage) => void;

  constructor(options: TranscriptModelOptions = {}) {
    this.onIgnored = options.onIgnored ?? (() => {});
  }

  /** The current generation (0 for the first service session of the run). */
  get generation(): number {
    return this.generationNo;
  }

  /** The last `seq` handled in the current generation, or undefined when none yet. */
  get lastHandledSeq(): number | undefined {
    return this.lastSeq.get(this.generationNo);
  }

  /**
   * Starts a new generation: the run continues on a new service session (not a resumption). Its text
   * always follows the text of earlier generations; its `seq` numbering starts afresh. Provisional text
   * of the previous session can no longer be finalised and is dropped.
   */
  beginGeneration(): TranscriptOp[] {
    this.generationNo += 1;
    return this.dropProvisional();
  }

  /** Forgets every provisional chunk (the service re-sends what it still holds after a reconnection). */
  dropProvisional(): TranscriptOp[] {
    for (const c of this.provisional.items) {
      this.chunks.delete(c.id);
    }
    this.provisional.items.length = 0;
    return this.provisionalOps();
  }

  /** Applies one `transcript` or `batch.replace` message; returns the editor operations. Never throws. */
  apply(message: TranscriptMessage | BatchReplaceMessage): TranscriptOp[] {
    try {
      if (message && message.type === 'transcript') return this.applyTranscript(message);
      if (message && message.type === 'batch.replace') return this.applyBatchReplace(message);
      this.onIgnored({ reason: 'not a transcript or batch.replace message' });
      return [];
    } catch (e) {
      // Defensive: malformed input that slipped past validation must not break the run.
      this.onIgnored({ reason: `malformed message: ${errorMessage(e)}` });
      return [];
    }
  }

  /** Committed chunks in display order. */
  committedChunks(): CommittedChunk[] {
    return this.committed.items.map((c) => ({ id: c.id, generation: c.generation, index: c.index, text: c.text }));
  }

  /** The committed text, joined with the spacing rules of `joinText`. */
  committedText(): string {
    return joinChunks(this.committed.items.map((c) => c.text));
  }

  /** The provisional text currently shown. */
  provisionalText(): string {
    return this.shownProvisional.text;
  }

  private acceptSeq(seq: unknown, id?: string): boolean {
    if (typeof seq !== 'number' || !Number.isInteger(seq) || seq < 0) {
      this.onIgnored({ reason: 'missing or invalid seq', id });
      return false;
    }
    const last = this.lastSeq.get(this.generationNo);
    if (last !== undefined && seq <= last) {
      this.onIgnored({ reason: `seq ${seq} is not above the last handled seq ${last}`, seq, id });
      return false;
    }
    this.lastSeq.set(this.generationNo, seq);
    return true;
  }

  private applyTranscript(m: TranscriptMessage): TranscriptOp[] {
    if (typeof m.id !== 'string' || typeof m.text !== 'string' || typeof m.index !== 'number') {
      this.onIgnored({ reason: 'transcript without id, text or index', seq: m.seq });
      return [];
    }
    if (!this.acceptSeq(m.seq, m.id)) return [];
    if (this.removed.has(m.id)) {
      this.onIgnored({ reason: `chunk ${m.id} was already replaced by batch.replace`, seq: m.seq, id: m.id });
      return [];
    }
    const ops: TranscriptOp[] = [];
    const existing = this.chunks.get(m.id);
    const isFinal = m.status === 'final';
    const empty = m.text.trim().length === 0;

    if (!isFinal) {
      if (existing?.state === 'committed') {
        // A final chunk only changes through a later final or batch.replace: keep the committed text.
        this.onIgnored({ reason: `${m.status} update for committed chunk ${m.id}`, seq: m.seq, id: m.id });
        return [];
      }
      if (existing?.state === 'provisional') this.provisional.remove(existing);
      const rec: ChunkRecord = existing ?? this.newRecord(m.id, this.generationNo, m.index);
      if (!existing || existing.state !== 'provisional') rec.generation = this.generationNo;
      rec.index = m.index;
      rec.text = m.text;
      rec.state = 'provisional';
      this.chunks.set(rec.id, rec);
      this.provisional.insert(rec);
      return this.provisionalOps();
    }

    // final
    if (existing?.state === 'committed') {
      if (existing.text === m.text) return [];
      const pos = this.committed.indexOf(existing);
      if (empty) {
        // The chunk's text is withdrawn: remove it, nothing is committed under this id any more.
        this.committed.remove(existing);
        existing.state = 'empty';
        existing.text = '';
        ops.push({ kind: 'replace', targetIds: [m.id], id: m.id, text: '', ...this.neighboursAt(pos) });
      } else {
        existing.text = m.text;
        ops.push({ kind: 'replace', targetIds: [m.id], id: m.id, text: m.text, ...this.neighboursOf(pos) });
      }
      ops.push(...this.provisionalOps());
      return ops;
    }
    if (existing?.state === 'provisional') this.provisional.remove(existing);
    const rec = existing ?? this.newRecord(m.id, this.generationNo, m.index);
    if (!existing) this.chunks.set(rec.id, rec);
    rec.index = m.index;
    rec.text = empty ? '' : m.text;
    if (empty) {
      rec.state = 'empty';
    } else {
      rec.state = 'committed';
      const pos = this.committed.insert(rec);
      ops.push({ kind: 'insert', id: rec.id, text: rec.text, ...this.neighboursOf(pos) });
    }
    ops.push(...this.provisionalOps());
    return ops;
  }

  private applyBatchReplace(m: BatchReplaceMessage): TranscriptOp[] {
    const data = m.data;
    const nc = data?.new_chunk;
    if (!data || !Array.isArray(data.target_ids) || !nc || typeof nc.id !== 'string' || typeof nc.text !== 'string') {
      this.onIgnored({ reason: 'batch.replace without target_ids or new_chunk', seq: m.seq });
      return [];
    }
    if (!this.acceptSeq(m.seq, nc.id)) return [];

    // Every known chunk the message names, plus an existing chunk that carries new_chunk's id.
    const ids = new Set<string>(data.target_ids.filter((t): t is string => typeof t === 'string'));
    if (this.chunks.has(nc.id)) ids.add(nc.id);
    const targets: ChunkRecord[] = [];
    for (const id of ids) {
      const c = this.chunks.get(id);
      if (c) targets.push(c);
    }
    targets.sort(compare);
    const committedTargets = targets.filter((c) => c.state === 'committed');
    // The new chunk takes the place of the first committed target (the text it rewrites in the document), else of the first target.
    const first = committedTargets[0] ?? targets[0];
    const firstCommittedPos = committedTargets.length > 0 ? this.committed.indexOf(committedTargets[0]!) : -1;

    for (const c of targets) {
      if (c.state === 'committed') this.committed.remove(c);
      else if (c.state === 'provisional') this.provisional.remove(c);
      this.chunks.delete(c.id);
      if (c.id !== nc.id) this.removed.add(c.id);
    }
    for (const id of data.target_ids) if (typeof id === 'string' && id !== nc.id) this.removed.add(id);
    this.removed.delete(nc.id);

    const index = typeof nc.index === 'number' ? nc.index : (first?.index ?? 0);
    const rec: ChunkRecord = first
      ? { id: nc.id, generation: first.generation, index: first.index, tie: first.tie, text: nc.text, state: 'empty' }
      : this.newRecord(nc.id, this.generationNo, index);
    rec.text = nc.text;
    const isFinal = nc.status === 'final';
    const empty = nc.text.trim().length === 0;
    this.chunks.set(rec.id, rec);

    const ops: TranscriptOp[] = [];
    if (isFinal && !empty) {
      rec.state = 'committed';
      const pos = this.committed.insert(rec);
      const nb = this.neighboursOf(pos);
      if (committedTargets.length > 0) {
        ops.push({ kind: 'replace', targetIds: committedTargets.map((c) => c.id), id: rec.id, text: rec.text, ...nb });
      } else {
        ops.push({ kind: 'insert', id: rec.id, text: rec.text, ...nb });
      }
    } else {
      if (!isFinal && !empty) {
        rec.state = 'provisional';
        this.provisional.insert(rec);
      } else {
        rec.state = 'empty';
        rec.text = '';
      }
      if (committedTargets.length > 0) {
        ops.push({
          kind: 'replace',
          targetIds: committedTargets.map((c) => c.id),
          id: rec.id,
          text: '',
          ...this.neighboursAt(firstCommittedPos),
        });
      }
    }
    ops.push(...this.provisionalOps());
    return ops;
  }

  private newRecord(id: string, generation: number, index: number): ChunkRecord {
    return { id, generation, index, tie: this.tieCounter++, text: '', state: 'empty' };
  }

  /** Neighbours of the committed chunk at `pos`. */
  private neighboursOf(pos: number): { prevId: string | null; nextId: string | null } {
    const items = this.committed.items;
    return { prevId: items[pos - 1]?.id ?? null, nextId: items[pos + 1]?.id ?? null };
  }

  /** Neighbours of the gap at `pos` (after a removal). */
  private neighboursAt(pos: number): { prevId: string | null; nextId: string | null } {
    const items = this.committed.items;
    return { prevId: items[pos - 1]?.id ?? null, nextId: items[pos]?.id ?? null };
  }

  /** The provisional op, when the provisional text or its anchor changed since it was last emitted. */
  private provisionalOps(): TranscriptOp[] {
    const prov = this.provisional.items;
    let text = '';
    let afterId: string | null = null;
    if (prov.length > 0) {
      text = prov.length === 1 ? joinText('', prov[0]!.text, '') : joinChunks(prov.map((c) => c.text));
      const pos = this.committed.lowerBound(prov[0]!);
      afterId = this.committed.items[pos - 1]?.id ?? null;
    }
    if (text === '') afterId = null;
    const shown = this.shownProvisional;
    if (shown.text === text && shown.afterId === afterId) return [];
    this.shownProvisional = { text, afterId };
    return [{ kind: 'provisional', text, afterId }];
  }
}
