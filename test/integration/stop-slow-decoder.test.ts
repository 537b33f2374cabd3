/**
 * Stop while the decoder is behind real time (a loaded machine): the service finishes decoding what it
 * received and sends its finals; the client waits for them as long as the service shows it is working,
 * and the text is committed. The decoder is slowed deterministically by a test hook
 * (DICTEE_TEST_DECODER_DELAY_MS: each 100 ms frame takes 250 ms more to decode), so the backlog at the
 * stop is several seconds longer than stop_delay plus the client's margin.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { recordings, recordingsAvailable } from '../helpers/recordings';
import { useServer } from '../helpers/server';

const run = promisify(execFile);
const CLI = path.resolve(__dirname, '..', '..', 'dist', 'client-cli.js');
const LIBRIVOX = '/usr/share/pocketsphinx/test/data/librivox';

describe('stop with a decoder behind real time (built service, pocketsphinx, example client)', function () {
  this.timeout(120_000);
  before(function () {
    // Skipped before the service's hook: a skip in a before hook leaves the later ones out.
    if (!recordingsAvailable()) this.skip();
  });
  const server = useServer({ args: ['--engine', 'pocketsphinx', '--workers', '1'], env: { DICTEE_TEST_DECODER_DELAY_MS: '250' } });
  let key: string;
  before(async () => {
    key = (await server.createKey({ name: 'slow decoder' })).key;
  });

  it('the last sentence is committed: the client waits while the service decodes its backlog', async () => {
    const rec = recordings().find((r) => r.name.endsWith('0920'))!;
    const started = Date.now();
    const r = await run(
      process.execPath,
      [CLI, '--language', 'en', '--server', server.url, '--verbose', path.join(LIBRIVOX, `${rec.name}.wav`)],
      {
        env: { ...process.env, DICTEE_API_KEY: key },
        timeout: 100_000,
      },
    ).catch((e: { stdout?: string; stderr?: string; code?: number }) => ({
      stdout: e.stdout ?? '',
      stderr: `${e.stderr ?? ''} (exit ${e.code})`,
    }));
    const committed = /--- committed text ---\n([\s\S]*?)\n---/.exec(r.stdout)?.[1] ?? '';
    const tookS = ((Date.now() - started) / 1000).toFixed(1);
    assert.doesNotMatch(
      r.stderr,
      /no "stopped"/,
      `the client gave up on its stop after ${tookS} s:\n${r.stderr.split('\n').slice(-8).join('\n')}`,
    );
    assert.match(committed.toLowerCase(), /married/, `committed text after ${tookS} s: ${JSON.stringify(committed)}`);
    assert.match(
      r.stdout,
      /metrics: total_chunks \d+/,
      `the stop ended with the service's metrics: ${r.stdout.split('\n').slice(-3).join(' ')}`,
    );
  });
});
