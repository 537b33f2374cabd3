import assert from 'node:assert/strict';
import type { Engine } from '../../src/server/engine/engine';
import { createLogger } from '../../src/server/log';
import { Resumer } from '../../src/server/live/resume';
import type { LiveSession } from '../../src/server/live/session';
import type { ApiKey, CheckpointRow, SessionStore } from '../../src/server/storage/stores';

const KEY = { id: 'k1', orgId: 'o1' } as ApiKey;
const METRICS = { total_chunks: 3, session_duration: 1, discarded_chunks: 0, audio_seconds: 0.3, final_chunks: 1 };

function row(over: Partial<CheckpointRow> = {}): CheckpointRow {
  return {
    session_id: 's1',
    key_id: 'k1',
    org_id: 'o1',
    next_seq: 8,
    next_index: 3,
    audio_offset: 9600,
    engine: '{}',
    config: JSON.stringify({ sample_rate: 16000 }),
    total_frames: 3,
    discarded_frames: 0,
    final_chunks: 2,
    created_at: '2026-01-01T00:00:00.000Z',
    stopped_at: null,
    updated_at: '2026-01-01T00:00:02.000Z',
    ...over,
  };
}

/** The store a decision reads: only what `decide` and `claim` use. */
function store(o: { owned?: boolean; checkpoint?: CheckpointRow; maxSeq?: number; claimed?: CheckpointRow }): SessionStore {
  return {
    stillOwned: () => Promise.resolve(o.owned ?? true),
    getCheckpoint: () => Promise.resolve(o.checkpoint),
    maxSeq: () => Promise.resolve(o.maxSeq ?? 0),
    claim: () => Promise.resolve(o.claimed),
  } as unknown as SessionStore;
}

function session(over: Partial<LiveSession> = {}): LiveSession {
  return { id: 's1', keyId: 'k1', isLive: true, lastSeq: 5, audioOffset: 3200, metrics: () => METRICS, ...over } as unknown as LiveSession;
}

const resumer = (s: SessionStore): Resumer =>
  new Resumer({
    engine: { name: 'simulated', languages: ['fr'] } as unknown as Engine,
    store: s,
    log: createLogger({ write: () => undefined }),
  });

describe('server: what a resume request gets (resume.ts decides, the registry carries it out)', () => {
  it('a live session in memory is taken over; a stale copy (claimed elsewhere) is to be forgotten first', async () => {
    const s = session();
    assert.deepEqual(await resumer(store({})).decide(KEY, 's1', 5, s), { kind: 'takeOver', session: s });
    assert.deepEqual(await resumer(store({ owned: false })).decide(KEY, 's1', 5, s), { kind: 'stale' });
  });

  it("refuses another key's session and an unknown one; a last_seq above what was issued is invalid", async () => {
    assert.deepEqual(await resumer(store({})).decide(KEY, 's1', 0, session({ keyId: 'k2' })), { kind: 'refuse' });
    assert.deepEqual(await resumer(store({})).decide(KEY, 's1', 0, undefined), { kind: 'refuse' });
    assert.deepEqual(await resumer(store({ checkpoint: row({ key_id: 'k2' }) })).decide(KEY, 's1', 0, undefined), { kind: 'refuse' });
    const d = await resumer(store({})).decide(KEY, 's1', 6, session());
    assert.equal(d.kind, 'invalid');
    assert.match(d.kind === 'invalid' ? d.message : '', /resume\.last_seq 6 is above the highest seq this session issued \(5\)/);
  });

  it('a stopped session is replayed, from memory or from its checkpoint', async () => {
    assert.deepEqual(await resumer(store({})).decide(KEY, 's1', 2, session({ isLive: false })), {
      kind: 'replay',
      replay: { sessionId: 's1', lastSeq: 2, issued: 5, offset: 3200, metrics: METRICS },
    });
    const stopped = row({ stopped_at: '2026-01-01T00:00:04.000Z' });
    const d = await resumer(store({ checkpoint: stopped, maxSeq: 9 })).decide(KEY, 's1', 2, undefined);
    assert.deepEqual(d, {
      kind: 'replay',
      replay: {
        sessionId: 's1',
        lastSeq: 2,
        issued: 9,
        offset: 9600,
        metrics: { total_chunks: 3, session_duration: 4, discarded_chunks: 0, audio_seconds: 0.3, final_chunks: 2 },
      },
    });
    assert.equal((await resumer(store({ checkpoint: stopped, maxSeq: 9 })).decide(KEY, 's1', 10, undefined)).kind, 'invalid');
  });

  it('a live session in storage only is restored: claimed, or refused when the checkpoint changed meanwhile', async () => {
    assert.deepEqual(await resumer(store({ checkpoint: row() })).decide(KEY, 's1', 4, undefined), { kind: 'restore' });
    const claimed = await resumer(store({ claimed: row(), maxSeq: 7 })).claim(KEY, 's1', 4);
    assert.ok(!(claimed instanceof Error));
    assert.deepEqual([claimed.config, claimed.restore.lastSeq, claimed.restore.storedSeq], [{ sample_rate: 16000 }, 4, 7]);
    const gone = await resumer(store({ claimed: row({ stopped_at: '2026-01-01T00:00:04.000Z' }) })).claim(KEY, 's1', 4);
    assert.ok(gone instanceof Error && /changed while it was claimed/.test(gone.message));
    assert.ok((await resumer(store({ claimed: row({ config: '{' }) })).claim(KEY, 's1', 4)) instanceof Error);
  });
});
