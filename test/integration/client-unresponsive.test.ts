/**
 * Issue 12, defect 15: a frozen service (SIGSTOP: its sockets stay open, nothing answers) must be seen
 * as unresponsive by the client within 10 s, while the audio is kept; once the service runs again the
 * run resumes and every word arrives once. Against the real built service.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DictationSession } from '../../src/client/session';
import { TranscriptModel } from '../../src/client/transcript';
import { until } from '../helpers/hostile';
import { startServer } from '../helpers/server';
import { silence, tone } from '../helpers/speech';

const WORDS = Array.from({ length: 60 }, (_, i) => `w${i + 1}`);

describe('client: a frozen service (SIGSTOP)', function () {
  this.timeout(60_000);

  it('is reported unresponsive within 10 s with the default options, the audio kept; after SIGCONT every word arrives once', async () => {
    const f = path.join(mkdtempSync(path.join(os.tmpdir(), 'dictee-frozen-')), 'script.txt');
    writeFileSync(f, WORDS.join(' '));
    const server = await startServer({ script: f });
    const pid = server.process().pid!;
    try {
      const { key } = await server.createKey();
      const session = new DictationSession({ serverUrl: server.url, apiKey: key, config: { language: 'en', silence_threshold: 1, engine_endpointing: 0.3 } });
      const model = new TranscriptModel();
      session.on('message', (m) => model.apply(m));
      session.on('configured', () => model.dropProvisional());
      session.on('generation', () => model.beginGeneration());
      const states: Array<{ state: string; at: number }> = [];
      session.on('state', (s) => states.push({ state: s, at: Date.now() }));
      await session.start();
      // One sentence of 10 words, final before the freeze.
      const send = async (pcm: Buffer): Promise<void> => {
        for (let i = 0; i < pcm.length; i += 3200) {
          session.sendAudio(pcm.subarray(i, i + 3200));
          await new Promise((r) => setTimeout(r, 25));
        }
      };
      await send(Buffer.concat([tone(3000), silence(1500)]));
      await until(() => model.committedText().split(/\s+/).filter(Boolean).length === 10, 10_000, 'the first sentence');
      process.kill(pid, 'SIGSTOP');
      const frozeAt = Date.now();
      // The person keeps dictating: another sentence while the service is frozen.
      await send(Buffer.concat([tone(3000), silence(1500)]));
      await until(() => states.some((s) => s.state === 'reconnecting' && s.at >= frozeAt), 12_000, 'the client to report the service unresponsive');
      const took = states.find((s) => s.state === 'reconnecting' && s.at >= frozeAt)!.at - frozeAt;
      assert.ok(took <= 10_000, `reported after ${took} ms`);
      process.kill(pid, 'SIGCONT');
      await until(() => model.committedText().split(/\s+/).filter(Boolean).length >= 20, 30_000, 'the second sentence after the service runs again');
      const result = await session.stop();
      assert.equal(result.reason, 'stopped');
      assert.deepEqual(model.committedText().split(/\s+/).filter(Boolean), WORDS.slice(0, 20), 'every word once, in order');
      session.dispose();
    } finally {
      try {
        process.kill(pid, 'SIGCONT');
      } catch {
        /* gone */
      }
      await server.stop();
    }
  });
});
