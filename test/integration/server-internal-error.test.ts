/**
 * INTERNAL_ERROR from the BUILT service, caused by a real fault: another process holds the write lock of
 * the service's SQLite database (as a careless backup job would), so the service cannot record a session.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import Database from 'better-sqlite3';
import { DB_FILE } from '../../src/server/storage/db';
import { WsProbe, useServer } from '../helpers/server';

describe('server INTERNAL_ERROR (built service, database locked by another process)', function () {
  this.timeout(30000);
  const server = useServer();
  let key: string;
  let lock: Database.Database | undefined;

  before(async () => {
    key = (await server.createKey({ name: 'internal error tests' })).key;
  });
  afterEach(() => {
    if (lock?.inTransaction) lock.prepare('ROLLBACK').run();
    lock?.close();
    lock = undefined;
  });

  function holdWriteLock(): void {
    lock = new Database(path.join(server.dataDir, DB_FILE));
    lock.prepare('BEGIN IMMEDIATE').run();
  }

  it('session init answers 500 INTERNAL_ERROR with the error body, leaks nothing, and works again once the lock is gone', async () => {
    holdWriteLock();
    const res = await fetch(`${server.url}/api/v1/live/sessions`, { method: 'POST', headers: { authorization: `Bearer ${key}` } });
    const text = await res.text();
    assert.equal(res.status, 500, text);
    const body = JSON.parse(text) as { success: boolean; error: { code: string; message: string; retry_after_ms: number } };
    assert.equal(body.success, false);
    assert.equal(body.error.code, 'INTERNAL_ERROR');
    assert.equal(typeof body.error.retry_after_ms, 'number');
    assert.ok(!text.includes(key), 'the key is not echoed');
    assert.ok(!/SQLITE|database/i.test(body.error.message), `internals are not exposed: ${body.error.message}`);

    lock!.prepare('ROLLBACK').run();
    const again = await fetch(`${server.url}/api/v1/live/sessions`, { method: 'POST', headers: { authorization: `Bearer ${key}` } });
    assert.equal(again.status, 200);
  });

  it('a WebSocket configure gets error INTERNAL_ERROR then close 1011; a new connection works once the lock is gone', async () => {
    holdWriteLock();
    const p = new WsProbe(server.wsUrl, { header: key });
    await p.opened;
    p.send({ type: 'configure', config: {} });
    const err = await p.waitType('error', 15000);
    assert.equal(err.code, 'INTERNAL_ERROR');
    assert.equal(typeof err.message, 'string');
    assert.equal(err.retry_after_ms !== undefined, true);
    const closed = await p.closed;
    assert.equal(closed.code, 1011);

    lock!.prepare('ROLLBACK').run();
    const q = new WsProbe(server.wsUrl, { header: key });
    const configured = await q.configure({});
    assert.equal(typeof configured.session_id, 'string');
    q.send({ type: 'control', action: 'stop' });
    await q.waitFor((m) => m.type === 'status' && m.state === 'stopped');
    await q.closed;
    assert.ok(!server.logs().includes(key), 'the key is never logged');
  });
});
