/**
 * API keys per service address (issue 29, defect 5): npm start's development key beats a stale stored
 * one, Clear API Key falls back to it, a key is never sent to another address, and the old single key is
 * moved to the current address. The secret storage is VS Code's, which cannot run in plain Node: here a
 * Map stands in for it (MemorySecrets), with the same three calls.
 */
import assert from 'node:assert/strict';
import { ApiKeyBook, LEGACY_SECRET, secretIdFor, serviceOf, type SecretsLike } from '../../src/extension/apiKeyBook';
import { silentLogger } from '../../src/shared/logger';

class MemorySecrets implements SecretsLike {
  readonly map = new Map<string, string>();
  async get(k: string): Promise<string | undefined> {
    return this.map.get(k);
  }
  async store(k: string, v: string): Promise<void> {
    this.map.set(k, v);
  }
  async delete(k: string): Promise<void> {
    this.map.delete(k);
  }
}

const key = (c: string): string => `svc_test_${c.repeat(32)}`;
const LOCAL = 'http://127.0.0.1:8787';
const OTHER = 'https://dictation.example.org';

describe('API keys: one per service address, the environment key for the address VS Code starts with', () => {
  it('the development key handed in DICTEE_API_KEY replaces a revoked key stored for its address', async () => {
    const secrets = new MemorySecrets();
    secrets.map.set(secretIdFor(LOCAL), key('r'));
    const book = new ApiKeyBook(secrets, silentLogger);
    await book.start(LOCAL, key('d'));
    assert.deepEqual(await book.get(LOCAL), { key: key('d'), from: 'stored' });
  });

  it('the old single key (earlier versions) is replaced by the development key too, not kept for the address', async () => {
    const secrets = new MemorySecrets();
    secrets.map.set(LEGACY_SECRET, key('r'));
    const book = new ApiKeyBook(secrets, silentLogger);
    await book.start(LOCAL, key('d'));
    assert.equal((await book.get(LOCAL))?.key, key('d'));
    assert.equal(secrets.map.has(LEGACY_SECRET), false);
  });

  it('Clear API Key falls back to the environment key of that address', async () => {
    const secrets = new MemorySecrets();
    const book = new ApiKeyBook(secrets, silentLogger);
    await book.start(LOCAL, key('d'));
    await book.set(LOCAL, key('u'));
    assert.equal((await book.get(LOCAL))?.key, key('u'));
    assert.deepEqual(await book.clear(LOCAL), { had: true, fallback: true });
    assert.deepEqual(await book.get(LOCAL), { key: key('d'), from: 'environment' });
  });

  it('a key is never sent to another address: neither a stored one nor the environment one', async () => {
    const secrets = new MemorySecrets();
    const book = new ApiKeyBook(secrets, silentLogger);
    await book.start(LOCAL, key('d'));
    await book.set(LOCAL, key('u'));
    assert.equal(await book.get(OTHER), undefined);
    await book.set(OTHER, key('o'));
    assert.equal((await book.get(OTHER))?.key, key('o'));
    assert.equal((await book.get(LOCAL))?.key, key('u'));
    assert.deepEqual(await book.clear(OTHER), { had: true, fallback: false });
  });

  it('the old single key is moved to the current address once, without an environment key', async () => {
    const secrets = new MemorySecrets();
    secrets.map.set(LEGACY_SECRET, key('a'));
    const book = new ApiKeyBook(secrets, silentLogger);
    await book.start(`${OTHER}/`, undefined);
    assert.equal((await book.get(OTHER))?.key, key('a'));
    assert.equal(secrets.map.has(LEGACY_SECRET), false);
    assert.equal(await book.get(LOCAL), undefined);
  });

  it('an address is its scheme (ws as http), host, port and path', () => {
    assert.equal(serviceOf('ws://127.0.0.1:8787/'), 'http://127.0.0.1:8787');
    assert.equal(serviceOf('wss://Dictation.Example.org/live/'), 'https://dictation.example.org/live');
    assert.notEqual(serviceOf('http://127.0.0.1:8787'), serviceOf('http://127.0.0.1:8788'));
  });

  it('a DICTEE_API_KEY that is not a key is ignored', async () => {
    const secrets = new MemorySecrets();
    const book = new ApiKeyBook(secrets, silentLogger);
    await book.start(LOCAL, 'not-a-key');
    assert.equal(await book.get(LOCAL), undefined);
  });
});
