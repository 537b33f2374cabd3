/**
 * A stop whose connection goes silent (a network change: the old socket neither answers nor closes, the
 * service itself is fine): before giving up, the client resumes the session on a new connection, the
 * service hands over what it finalised, and the stop ends with every word once.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DictationSession } from '../../src/client/session';
import { TranscriptModel } from '../../src/client/transcript';
import { startServer, withServer } from '../helpers/server';
import { scriptFile, silence, tone } from '../helpers/speech';
import { startTcpProxy } from '../helpers/tcpProxy';
import { waitFor } from '../helpers/wait';

const WORDS = Array.from({ length: 60 }, (_, i) => `w${i + 1}`);

describe('client: the connection goes silent during the stop', function () {
  this.timeout(90_000);

  for (const when of ['before the stop is sent', 'after the stop is sent'] as const) {
    it(`${when}: the client resumes the session on a new connection and the last sentence arrives, once`, async () => {
      await withServer({ script: scriptFile(WORDS.join(' ')) }, async (server) => {
        const proxy = await startTcpProxy(Number(new URL(server.url).port));
        try {
          const { key } = await server.createKey();
          // The service is reached only through the proxy.
          const session = new DictationSession({
            serverUrl: `http://127.0.0.1:${proxy.port}`,
            apiKey: key,
            config: { language: 'en', silence_threshold: 1, engine_endpointing: 0.3 },
          });
          const model = new TranscriptModel();
          session.on('message', (m) => model.apply(m));
          session.on('configured', () => model.dropProvisional());
          session.on('generation', () => model.beginGeneration());
          const words = (): string[] => model.committedText().split(/\s+/).filter(Boolean);
          const send = async (pcm: Buffer): Promise<void> => {
            for (let i = 0; i < pcm.length; i += 3200) {
              session.sendAudio(pcm.subarray(i, i + 3200));
              await new Promise((r) => setTimeout(r, 25));
            }
          };
          await session.start();
          await send(Buffer.concat([tone(3000), silence(1500)]));
          await waitFor(() => words().length === 10, 10_000, 'the first sentence');
          // The second sentence, not final yet (no pause after it) when the stop is asked for.
          await send(tone(3000));
          await waitFor(() => model.provisionalText().split(/\s+/).filter(Boolean).length > 0, 10_000, 'the second sentence on its way');
          const connections = proxy.connections();
          let stopping: Promise<Awaited<ReturnType<DictationSession['stop']>>>;
          if (when === 'before the stop is sent') {
            proxy.silenceOpen();
            stopping = session.stop();
          } else {
            stopping = session.stop();
            proxy.silenceOpen();
          }
          const result = await stopping;
          assert.equal(result.reason, 'stopped', `the stop ended as ${result.reason}`);
          assert.ok(proxy.connections() > connections, 'a new connection resumed the session');
          assert.deepEqual(words(), WORDS.slice(0, 20), 'every word once, in order');
          session.dispose();
        } finally {
          await proxy.close();
        }
      });
    });
  }
});
