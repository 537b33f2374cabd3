/**
 * One master key per store (SQLite data dir): a data dir once started with a master key refuses a start
 * without it, or with another (exit 2, a message that names neither key), and never makes a second one; the
 * key may come from a file (DICTEE_MASTER_KEY_FILE), its trailing line break not part of it.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { withServer } from '../helpers/server';
import { startOnce } from '../helpers/startOnce';

const newKey = (): string => randomBytes(32).toString('base64url');
const tmpDir = (): string => mkdtempSync(path.join(os.tmpdir(), 'dictee-mk-'));

/** `POST /v1/api-keys` with `master`: its HTTP status. */
/** Two live keys of a scope never share a name: each key made here gets its own. */
let keysMade = 0;

async function createKeyStatus(port: number, master: string): Promise<number> {
  const res = await fetch(`http://127.0.0.1:${port}/v1/api-keys`, {
    method: 'POST',
    headers: { authorization: `Bearer ${master}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: `from-file ${++keysMade}`, type: 'personal' }),
  });
  await res.arrayBuffer();
  return res.status;
}

describe('one master key per data dir (built service, SQLite)', function () {
  this.timeout(60_000);

  it('a data dir started with DICTEE_MASTER_KEY: a start without a key, or with another, is refused (exit 2), no key made or shown', async () => {
    const dataDir = tmpDir();
    const key = newKey();
    await withServer({ dataDir, env: { DICTEE_MASTER_KEY: key } }, async (server) => {
      assert.ok((await server.createKey()).key);
    });
    const without = await startOnce(['--data-dir', dataDir], {});
    assert.equal(without.listened, false, without.stdout);
    assert.equal(without.code, 2, without.stderr);
    assert.doesNotMatch(without.stdout, /master key/, 'no master key generated or shown');
    assert.match(without.stderr, /^error: the data dir .* has a master key that was given to the service, and this instance has none/m);
    const other = newKey();
    const wrong = await startOnce(['--data-dir', dataDir], { DICTEE_MASTER_KEY: other });
    assert.equal(wrong.code, 2, wrong.stderr);
    assert.match(wrong.stderr, /^error: the master key in DICTEE_MASTER_KEY does not match the master key the data dir .* already has/m);
    for (const r of [without, wrong]) {
      assert.ok(!(r.stdout + r.stderr).includes(key) && !(r.stdout + r.stderr).includes(other), 'neither key printed');
    }
    // The right key still starts it, and it is still the master key.
    const right = await startOnce(['--data-dir', dataDir], { DICTEE_MASTER_KEY: key }, async (port) => {
      assert.equal(await createKeyStatus(port, key), 201);
    });
    assert.equal(right.listened, true, right.stderr);
  });

  it('a generated master key: shown once, and a later start with another key is refused (exit 2)', async () => {
    const dataDir = tmpDir();
    const first = await startOnce(['--data-dir', dataDir], {});
    const shown = /master key \(shown once\): (\S+)/.exec(first.stdout)?.[1];
    assert.ok(shown, first.stdout);
    const again = await startOnce(['--data-dir', dataDir], {}, async (port) => {
      assert.equal(await createKeyStatus(port, shown), 201);
    });
    assert.doesNotMatch(again.stdout, /master key/);
    const other = await startOnce(['--data-dir', dataDir], { DICTEE_MASTER_KEY: newKey() });
    assert.equal(other.code, 2, other.stderr);
    assert.match(other.stderr, /does not match the master key the data dir .* already has/);
    assert.ok(!other.stderr.includes(shown));
  });

  it('DICTEE_MASTER_KEY_FILE: the key read from a file (trailing newline trimmed); both variables, an empty, unreadable or weak file refused (exit 2)', async () => {
    const dataDir = tmpDir();
    const key = newKey();
    const file = path.join(tmpDir(), 'master-key');
    writeFileSync(file, `${key}\n`, { mode: 0o600 });
    const started = await startOnce(['--data-dir', dataDir], { DICTEE_MASTER_KEY_FILE: file }, async (port) => {
      assert.equal(await createKeyStatus(port, key), 201, 'the key without its newline is the master key');
    });
    assert.equal(started.listened, true, started.stderr);
    // The same data dir through DICTEE_MASTER_KEY: the same key.
    const inline = await startOnce(['--data-dir', dataDir], { DICTEE_MASTER_KEY: key }, async (port) => {
      assert.equal(await createKeyStatus(port, key), 201);
    });
    assert.equal(inline.listened, true, inline.stderr);

    const refusals: Array<[Record<string, string>, RegExp]> = [
      [{ DICTEE_MASTER_KEY: key, DICTEE_MASTER_KEY_FILE: file }, /DICTEE_MASTER_KEY and DICTEE_MASTER_KEY_FILE are both set/],
      [{ DICTEE_MASTER_KEY_FILE: path.join(dataDir, 'missing') }, /cannot read DICTEE_MASTER_KEY_FILE \(.*missing\): .*ENOENT/],
    ];
    const empty = path.join(tmpDir(), 'empty');
    writeFileSync(empty, '\n');
    refusals.push([{ DICTEE_MASTER_KEY_FILE: empty }, /DICTEE_MASTER_KEY_FILE \(.*empty\) is empty/]);
    const weak = path.join(tmpDir(), 'weak');
    writeFileSync(weak, 'short-secret\n');
    refusals.push([{ DICTEE_MASTER_KEY_FILE: weak }, /DICTEE_MASTER_KEY_FILE \(.*weak\) is too short \(12 characters\)/]);
    for (const [env, message] of refusals) {
      const r = await startOnce(['--data-dir', tmpDir()], env);
      assert.equal(r.code, 2, `${JSON.stringify(Object.keys(env))}: ${r.stderr}`);
      assert.match(r.stderr, message);
      assert.equal(r.stdout, '', 'no master key made');
      assert.ok(!r.stderr.includes(key) && !r.stderr.includes('short-secret'), 'no key in the message');
    }
  });
});
