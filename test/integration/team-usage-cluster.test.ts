/**
 * Usage and the audit log with two instances of the BUILT service on PostgreSQL and Redis: one dictation
 * (HTTP init on one instance, WebSocket on the other; then through HAProxy) is one session record; an
 * administrator's DELETE through one instance ends the session the other holds (every word first); audio
 * seconds from the bytes; appends from both instances at once make one unbroken chain, and `audit verify`
 * finds a tampered row.
 */
import assert from 'node:assert/strict';
import pg from 'pg';
import { type TestBalancer, missingBalancer, startBalancer } from '../helpers/balancer';
import { clusterScript, startInstances, useBackends } from '../helpers/cluster';
import { WsProbe } from '../helpers/server';
import { framesOf, tone } from '../helpers/speech';
import { call, dictateFast, runCli } from '../helpers/team';

describe('usage and audit across instances (built service, PostgreSQL + Redis)', function () {
  this.timeout(120_000);
  const backends = useBackends('teamusage');

  it('one dictation (HTTP init on one instance, WebSocket on the other, then through HAProxy) is one session record', async () => {
    const [a, b] = backends.track(
      await startInstances(2, { database: await backends.database(), redis: backends.redis.url(), script: clusterScript() }),
    );
    const { key, id: keyId } = await a!.createKey();
    const init = await call(a!.url, 'POST', '/api/v1/live/sessions', key);
    assert.equal(init.status, 200, init.text);
    const { id } = await dictateFast(b!, key, 1.5);
    assert.equal(id, init.json.session_id, 'the WebSocket on the other instance adopted the init');
    let lb: TestBalancer | undefined;
    if (!missingBalancer('haproxy')) {
      lb = await startBalancer('haproxy', [a!.port, b!.port]);
      try {
        for (let i = 0; i < 2; i++) {
          const viaLb = await call(lb.url, 'POST', '/api/v1/live/sessions', key);
          const { id: wsId } = await dictateFast({ wsUrl: `${lb.url.replace(/^http/, 'ws')}/api/v1/audio/live` }, key, 0.5);
          assert.equal(wsId, viaLb.json.session_id);
        }
      } finally {
        await lb.stop();
      }
    }
    const listed = await call(b!.url, 'GET', `/v1/sessions?key_id=${keyId}`, a!.masterKey);
    const sessions = listed.json.sessions as Array<Record<string, unknown>>;
    assert.equal(sessions.length, lb ? 3 : 1, listed.text);
    assert.ok(
      sessions.every((s) => s.state === 'ended'),
      'every record ended',
    );
    const first = sessions.find((s) => s.session_id === id)!;
    assert.equal(first.audio_seconds, 1.5);
    const usage = await call(a!.url, 'GET', '/v1/usage', a!.masterKey);
    const line = (usage.json.usage as Array<Record<string, unknown>>).find((u) => u.key_id === keyId);
    assert.deepEqual(line, { key_id: keyId, sessions: lb ? 3 : 1, audio_seconds: lb ? 2.5 : 1.5, errors: {} });
  });

  it('DELETE /v1/sessions/<id> through one instance ends the session the other holds: every word first; counted with its audio', async () => {
    const [a, b] = backends.track(
      await startInstances(2, { database: await backends.database(), redis: backends.redis.url(), script: clusterScript() }),
    );
    const { key, id: keyId } = await a!.createKey();
    const probe = new WsProbe(b!.wsUrl, { header: key });
    const id = String((await probe.configure({ language: 'en', flush_timeout: 30 })).session_id);
    for (const f of framesOf(tone(2000))) probe.sendAudio(f);
    await probe.roundTrip();
    const ended = await call(a!.url, 'DELETE', `/v1/sessions/${id}`, a!.masterKey);
    assert.equal(ended.status, 200, ended.text);
    assert.equal((ended.json.session as Record<string, unknown>).end_reason, 'ended by an administrator');
    const error = await probe.waitType('error');
    assert.equal(error.code, 'AUTH_ERROR');
    const finals = probe.messages.filter((m) => m.type === 'transcript' && m.status === 'final');
    assert.ok(finals.length > 0 && probe.messages.indexOf(error) > probe.messages.indexOf(finals.at(-1)!), 'words before the error');
    const usage = await call(b!.url, 'GET', '/v1/usage?group_by=key', a!.masterKey);
    const line = (usage.json.usage as Array<Record<string, unknown>>).find((u) => u.key_id === keyId);
    assert.deepEqual(line, { key_id: keyId, sessions: 1, audio_seconds: 2, errors: {} });
    const audit = await call(b!.url, 'GET', '/v1/audit?action=session.ended&format=jsonl', a!.masterKey);
    assert.equal(audit.text.trim().split('\n').length, 1, audit.text);
    assert.equal((JSON.parse(audit.text) as Record<string, unknown>).target, id);
  });

  it('appends from two instances at once make one chain that verifies; a tampered row is found', async () => {
    const database = await backends.database();
    const [a, b] = backends.track(await startInstances(2, { database, redis: backends.redis.url(), script: clusterScript() }));
    const made = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? a! : b!).createKey({ name: `k${i}` })));
    await Promise.all(made.map((k, i) => (i % 2 ? b! : a!).revokeKey(k.id)));
    const entries = (await call(a!.url, 'GET', '/v1/audit', a!.masterKey)).json.entries as Array<Record<string, unknown>>;
    assert.equal(entries.length, 40);
    assert.deepEqual(
      entries.map((e) => Number(e.seq)),
      Array.from({ length: 40 }, (_, i) => i + 1),
    );
    const ok = await runCli(['audit', 'verify', '--database', database]);
    assert.equal(ok.code, 0, ok.err);
    assert.match(ok.out, /audit log intact: 40 entries in 1 chain/);
    assert.ok(!ok.out.includes(backends.pg.password), 'no password');
    const client = new pg.Client({ connectionString: database });
    await client.connect();
    await client.query("UPDATE audit_log SET actor = 'someone else' WHERE seq = 7");
    await client.end();
    const broken = await runCli(['audit', 'verify', '--database', database]);
    assert.equal(broken.code, 1, broken.out);
    assert.match(broken.err, /entry 7: entry 7 was altered/);
  });
});
