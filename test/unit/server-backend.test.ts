import assert from 'node:assert/strict';
import { Availability, BackendStartError, backoffMs, checkUrl, maskPassword, redactedUrl } from '../../src/server/storage/backend';
import { createLogger } from '../../src/server/log';
import { isConnectionError, isRetryableError } from '../../src/server/storage/pg/connect';
import { MIGRATIONS } from '../../src/server/storage/pg/migrations';
import { waitFor } from '../helpers/wait';

describe('server backends: URLs, errors, reconnection', () => {
  it('says a URL without its password, and nothing of a string that is not a URL', () => {
    assert.equal(redactedUrl('postgres://dictee:s3cret@db:5432/dictee'), 'postgres://dictee:***@db:5432/dictee');
    assert.equal(redactedUrl('redis://:s3cret@cache:6379'), 'redis://:***@cache:6379');
    assert.equal(redactedUrl('postgres://db/dictee'), 'postgres://db/dictee');
    assert.equal(redactedUrl('s3cret garbage'), '(not a URL)');
    assert.equal(maskPassword('auth failed for s3cret!', 'postgres://u:s3cret%21@h/d'), 'auth failed for ***');
  });

  it('checks a URL of the command line: scheme and host, never showing the password', () => {
    assert.equal(checkUrl('--database', 'postgresql://u:p@h/d', ['postgres:', 'postgresql:'], 'ex').hostname, 'h');
    const cases: Array<[string, RegExp]> = [
      ['nope', /^--database is not a URL; expected ex$/],
      ['mysql://u:pw@h/d', /^--database mysql:\/\/u:\*\*\*@h\/d: the scheme must be postgres:\/\/ or postgresql:\/\/; expected ex$/],
      ['postgres:///d', /no host/],
    ];
    for (const [url, re] of cases) {
      assert.throws(
        () => checkUrl('--database', url, ['postgres:', 'postgresql:'], 'ex'),
        (e: unknown) => e instanceof BackendStartError && re.test(e.message) && !e.message.includes(':pw@'),
        url,
      );
    }
  });

  it('backs off from 250 ms doubling up to 5 s, with jitter', () => {
    for (let i = 0; i < 50; i++) {
      const d0 = backoffMs(0);
      assert.ok(d0 >= 200 && d0 <= 300, String(d0));
      const d9 = backoffMs(9);
      assert.ok(d9 >= 4000 && d9 <= 6000, String(d9));
    }
  });

  it('tells a lost connection from a failed statement', () => {
    for (const e of [
      Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }),
      Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }),
      Object.assign(new Error('connection failure'), { code: '08006' }),
      new Error('Connection terminated unexpectedly'),
      new Error('timeout exceeded when trying to connect'),
      new Error('Query read timeout'),
    ]) {
      assert.ok(isConnectionError(e), e.message);
    }
    for (const e of [
      Object.assign(new Error('relation "x" does not exist'), { code: '42P01' }),
      Object.assign(new Error('duplicate key'), { code: '23505' }),
      new Error('something else'),
    ]) {
      assert.ok(!isConnectionError(e), e.message);
    }
    assert.ok(isRetryableError({ code: '40001' }) && isRetryableError({ code: '40P01' }) && !isRetryableError({ code: '23505' }));
  });

  it('migrations: numbered from 1 without gaps, each named', () => {
    MIGRATIONS.forEach((m, i) => {
      assert.equal(m.version, i + 1);
      assert.ok(m.name.length > 0 && m.sql.trim().length > 0);
    });
  });

  it('Availability: logs the loss once, refuses meanwhile with a wait, probes with backoff, wakes the waiters when back', async () => {
    const lines: string[] = [];
    const log = createLogger({ write: (l) => lines.push(l), level: 'info' });
    let answers = false;
    let probes = 0;
    const a = new Availability(
      'PostgreSQL',
      async () => {
        probes++;
        if (!answers) throw new Error('ECONNREFUSED');
      },
      log,
    );
    assert.equal(a.up, true);
    await a.whenUp();
    a.lost(new Error('connect ECONNREFUSED'));
    a.lost(new Error('again'));
    assert.equal(a.up, false);
    assert.ok(a.retryAfterMs() >= 1000);
    let woken = false;
    const waiting = a.whenUp().then(() => (woken = true));
    await waitFor(() => probes >= 2, 5000, 'two probes');
    assert.equal(woken, false);
    answers = true;
    await waiting;
    assert.equal(a.up, true);
    const msgs = lines.map((l) => (JSON.parse(l) as { msg: string }).msg);
    assert.equal(msgs.filter((m) => /connection lost/.test(m)).length, 1, 'the loss is logged once');
    assert.equal(msgs.filter((m) => /connection restored/.test(m)).length, 1);
    a.close();
  });
});
