/**
 * Usage, session listings, an administrator's end and the audit log against the BUILT service on SQLite:
 * audio seconds counted from the audio bytes (not wall time), durable across a restart; `last_used_at`;
 * scoping by key; `DELETE /v1/sessions/<id>` delivering every word first; the audit log's entries (never a
 * key's value or dictated text), its exports, and `audit verify` finding a tampered row.
 */
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import path from 'node:path';
import { type TestServer, WsProbe, useServer } from '../helpers/server';
import { framesOf, scriptFile, tone } from '../helpers/speech';
import { call, dictateFast, runCli } from '../helpers/team';
import { waitFor } from '../helpers/wait';

const WORDS = Array.from({ length: 60 }, (_, i) => `word${i + 1}`);

describe('usage, sessions and the audit log (built service, SQLite)', function () {
  this.timeout(60_000);
  const server: TestServer = useServer(() => ({ script: scriptFile(WORDS.join(' ')) }));

  it('counts audio seconds from the bytes received (2.99 s sent fast), in the listing and the usage, across a restart', async () => {
    const { key, id: keyId } = await server.createKey({ name: 'fast' });
    const { id } = await dictateFast(server, key, 2.99);
    const listed = await call(server.url, 'GET', `/v1/sessions?key_id=${keyId}`, server.masterKey);
    assert.equal(listed.status, 200, listed.text);
    const sessions = listed.json.sessions as Array<Record<string, unknown>>;
    assert.equal(sessions.length, 1);
    const s = sessions[0]!;
    assert.equal(s.session_id, id);
    assert.equal(s.state, 'ended');
    assert.equal(s.audio_seconds, 2.99);
    assert.ok(Number(s.duration) < 2.99, `wall time ${String(s.duration)} s, shorter than the audio: sent faster than real time`);
    assert.equal(s.end_reason, 'client stop');
    const before = await call(server.url, 'GET', '/v1/usage?group_by=key', server.masterKey);
    const line = (before.json.usage as Array<Record<string, unknown>>).find((u) => u.key_id === keyId);
    assert.deepEqual(line, { key_id: keyId, sessions: 1, audio_seconds: 2.99, errors: {} });
    await server.restart();
    const after = await call(server.url, 'GET', '/v1/usage?group_by=key', server.masterKey);
    assert.deepEqual(after.json.usage, before.json.usage, 'usage survives a restart');
    const byDay = await call(server.url, 'GET', '/v1/usage?group_by=day', server.masterKey);
    const today = new Date().toISOString().slice(0, 10);
    assert.ok(
      (byDay.json.usage as Array<Record<string, unknown>>).some((u) => u.day === today && Number(u.sessions) >= 1),
      byDay.text,
    );
  });

  it('sets last_used_at on the first use of a key (null before), off the request path', async () => {
    const { key, id } = await server.createKey({ name: 'lastused' });
    const listing = async (): Promise<Record<string, unknown>> => {
      const keys = (await call(server.url, 'GET', '/v1/api-keys', server.masterKey)).json.keys as Array<Record<string, unknown>>;
      return keys.find((k) => k.id === id)!;
    };
    assert.equal((await listing()).last_used_at, null);
    const t0 = Date.now();
    const used = await call(server.url, 'POST', '/v1/live/sessions', key);
    assert.equal(used.status, 200);
    const at = await waitFor(async () => (await listing()).last_used_at as string | null, 5000, 'last_used_at set');
    assert.ok(Date.parse(at) >= t0 - 1000 && Date.parse(at) <= Date.now(), at);
  });

  it('scopes reads to the key: a project key sees its project only; read or admin is needed, admin to end a session', async () => {
    const a = await server.createKey({ name: 'proj-a', type: 'project', project_id: 'proj_a', permissions: ['read', 'write'] });
    const b = await server.createKey({ name: 'proj-b', type: 'project', project_id: 'proj_b', permissions: ['write'] });
    const sa = await dictateFast(server, a.key, 0.5);
    const sb = await dictateFast(server, b.key, 0.5);
    const seen = await call(server.url, 'GET', '/v1/sessions', a.key);
    assert.equal(seen.status, 200, seen.text);
    const ids = (seen.json.sessions as Array<Record<string, unknown>>).map((s) => s.session_id);
    assert.ok(ids.includes(sa.id) && !ids.includes(sb.id), JSON.stringify(ids));
    const usage = await call(server.url, 'GET', '/v1/usage?group_by=project', a.key);
    assert.deepEqual(
      (usage.json.usage as Array<Record<string, unknown>>).map((u) => u.project_id),
      ['proj_a'],
    );
    assert.equal((await call(server.url, 'GET', '/v1/sessions?project_id=proj_b', a.key)).status, 403, 'another project');
    assert.equal((await call(server.url, 'GET', '/v1/sessions', b.key)).status, 403, 'write only: no reading');
    assert.equal((await call(server.url, 'DELETE', `/v1/sessions/${sa.id}`, a.key)).status, 403, 'read: no ending');
    assert.equal((await call(server.url, 'GET', '/v1/audit', a.key)).status, 403, 'a project key reads no audit log');
    assert.equal((await call(server.url, 'GET', '/v1/sessions')).status, 401);
    const bad = await call(server.url, 'GET', '/v1/usage?group_by=planet', server.masterKey);
    assert.equal(bad.status, 400);
    assert.match(String((bad.json.error as Record<string, unknown>).message), /group_by/);
    const badFrom = await call(server.url, 'GET', '/v1/sessions?from=yesterday', server.masterKey);
    assert.match(String((badFrom.json.error as Record<string, unknown>).message), /^from must be/);
  });

  it('an administrator ends a live session: every pending word first, then AUTH_ERROR; audited', async () => {
    const admin = await server.createKey({ name: 'admin', permissions: ['read', 'admin'] });
    const { key } = await server.createKey({ name: 'dictating' });
    const probe = new WsProbe(server.wsUrl, { header: key });
    const configured = await probe.configure({ language: 'en', flush_timeout: 30 });
    const id = String(configured.session_id);
    for (const f of framesOf(tone(2000))) probe.sendAudio(f);
    await probe.roundTrip();
    const live = await call(server.url, 'GET', '/v1/sessions?state=live', server.masterKey);
    assert.ok(
      (live.json.sessions as Array<Record<string, unknown>>).some((s) => s.session_id === id && s.state === 'live'),
      live.text,
    );
    const ended = await call(server.url, 'DELETE', `/v1/sessions/${id}`, admin.key);
    assert.equal(ended.status, 200, ended.text);
    const session = ended.json.session as Record<string, unknown>;
    assert.equal(session.end_reason, 'ended by an administrator');
    assert.equal(session.audio_seconds, 2);
    const error = await probe.waitType('error');
    assert.equal(error.code, 'AUTH_ERROR');
    const finals = probe.messages.filter((m) => m.type === 'transcript' && m.status === 'final');
    assert.ok(finals.length > 0, 'the pending words were delivered as final before the error');
    assert.ok(probe.messages.indexOf(error) > probe.messages.indexOf(finals.at(-1)!));
    const audit = await call(server.url, 'GET', '/v1/audit?action=session.ended', server.masterKey);
    const entries = audit.json.entries as Array<Record<string, unknown>>;
    assert.ok(
      entries.some((e) => e.target === id && e.actor === admin.id && e.outcome === 'success'),
      audit.text,
    );
  });

  it('audits key creation and revocation (never a key value nor dictated text), exports JSON lines and CSV, and audit verify finds a tampered row', async () => {
    const created = await server.createKey({ name: 'audited' });
    await dictateFast(server, created.key, 1);
    await server.revokeKey(created.id);
    const json = await call(server.url, 'GET', '/v1/audit', server.masterKey);
    assert.equal(json.status, 200, json.text);
    const entries = json.json.entries as Array<Record<string, unknown>>;
    const mine = entries.filter((e) => e.target === created.id).map((e) => [e.actor, e.action, e.outcome]);
    assert.deepEqual(mine, [
      ['master', 'key.created', 'success'],
      ['master', 'key.revoked', 'success'],
    ]);
    assert.ok(
      entries.every((e) => e.ip === '127.0.0.1' || e.ip === '::ffff:127.0.0.1'),
      'the address of each request',
    );
    const jsonl = await call(server.url, 'GET', '/v1/audit?format=jsonl', server.masterKey);
    assert.equal(jsonl.text.trim().split('\n').length, entries.length);
    const csv = await call(server.url, 'GET', '/v1/audit?format=csv', server.masterKey);
    assert.match(csv.text, /^org_id,seq,at,actor,action,target,ip,outcome,prev_hash,hash\r\n/);
    for (const out of [json.text, jsonl.text, csv.text]) {
      assert.ok(!out.includes(created.key) && !out.includes(server.masterKey), 'no key value');
      for (const w of WORDS) assert.ok(!out.includes(w), 'no dictated text');
    }
    await server.stop();
    const ok = await runCli(['audit', 'verify', '--data-dir', server.dataDir]);
    assert.equal(ok.code, 0, ok.err);
    assert.match(ok.out, /audit log intact: \d+ entries/);
    const db = new Database(path.join(server.dataDir, 'dictee.sqlite'));
    db.prepare("UPDATE audit_log SET ip = '203.0.113.9' WHERE seq = 2").run();
    db.close();
    const broken = await runCli(['audit', 'verify', '--data-dir', server.dataDir]);
    assert.equal(broken.code, 1, broken.out + broken.err);
    assert.match(broken.err, /entry 2: entry 2 was altered/);
    await server.restart();
  });
});
