/**
 * The retention rule every SessionStore keeps (SQLite and PostgreSQL), checked the same way on both:
 * `pruneBefore` deletes the records and events of sessions that ended (or, never started, were created)
 * before the limit, and keeps recent and still-live sessions.
 */
import assert from 'node:assert/strict';
import type { CheckpointRow, SessionStore } from '../../src/server/storage/stores';

export const daysAgo = (d: number): string => new Date(Date.now() - d * 86_400_000).toISOString();

export const checkpointAt = (id: string, updated: string, finals = 0): CheckpointRow => ({
  session_id: id,
  key_id: 'k',
  org_id: 'o',
  next_seq: 1,
  next_index: 0,
  audio_offset: 0,
  engine: '{}',
  config: '{}',
  total_frames: 0,
  discarded_frames: 0,
  final_chunks: finals,
  created_at: updated,
  stopped_at: null,
  updated_at: updated,
});

/** Runs the retention scenario on `store`; `written(id)` waits until the session's journal writes are durable. */
export async function checkRetention(store: SessionStore, written: (id: string) => Promise<void> = async () => undefined): Promise<void> {
  await store.recordSession('old', 'k', 'o', 'ws', daysAgo(40));
  await store.sessionEnded('old', { at: daysAgo(39), duration: 1, totalFrames: 1, finals: 1, reason: 'client stop', audioSeconds: 1 });
  store.persistEvent('old', 1, '{"text":"old words"}', checkpointAt('old', daysAgo(39)));
  await store.recordSession('recent', 'k', 'o', 'ws', daysAgo(2));
  store.persistEvent('recent', 1, '{"text":"recent words"}', checkpointAt('recent', daysAgo(2)));
  await store.recordSession('long-live', 'k', 'o', 'ws', daysAgo(40));
  store.persistEvent('long-live', 1, '{"text":"still dictating"}', checkpointAt('long-live', daysAgo(0), 3));
  await store.recordSession('unused-init', 'k', 'o', 'http', daysAgo(31));
  for (const id of ['old', 'recent', 'long-live']) await written(id);
  const r = await store.pruneBefore(daysAgo(30));
  assert.deepEqual(r, { sessions: 2, events: 1 });
  assert.equal(await store.getSession('old'), undefined);
  assert.equal(await store.getSession('unused-init'), undefined);
  assert.ok(await store.getSession('recent'));
  assert.ok(await store.getSession('long-live'), 'a session still live keeps its record');
  assert.equal((await store.eventsAfter('old', 0)).length, 0);
  assert.equal((await store.eventsAfter('recent', 0)).length, 1);
  assert.equal((await store.eventsAfter('long-live', 0)).length, 1);
  assert.equal((await store.getCheckpoint('long-live'))?.final_chunks, 3, 'the checkpoint keeps its counters');
  assert.equal((await store.getSession('recent'))?.project_id, null, 'a session of an unknown key has no project');
}
