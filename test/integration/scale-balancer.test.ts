/**
 * The extension's client library (DictationSession) through a load balancer (HAProxy, then nginx, each
 * running its configuration file of deploy/) in front of three instances on PostgreSQL and Redis: the
 * instance carrying the session is killed (SIGKILL) mid-sentence; the run reconnects through the load
 * balancer to a live instance, resumes the same session, and ends with every word exactly once.
 */
import assert from 'node:assert/strict';
import { DictationSession } from '../../src/client/session';
import { TranscriptModel } from '../../src/client/transcript';
import { type BalancerKind, type TestBalancer, startBalancer } from '../helpers/balancer';
import { DICTATED, dictation, clusterScript, startInstances, useBackends } from '../helpers/cluster';
import type { TestServer } from '../helpers/server';
import { sleep, waitFor } from '../helpers/wait';

describe('the client library through a load balancer, its instance killed (built service)', function () {
  this.timeout(150_000);
  const backends = useBackends('balancer');

  for (const kind of ['haproxy', 'nginx'] as BalancerKind[]) {
    it(`behind ${kind}: the run resumes on another instance, every word exactly once`, async () => {
      let lb: TestBalancer | undefined;
      try {
        const instances = backends.track(
          await startInstances(3, { database: await backends.database(), redis: backends.redis.url(), script: clusterScript() }),
        );
        lb = await startBalancer(
          kind,
          instances.map((s) => s.port),
        );
        const { key } = await instances[0]!.createKey();
        const session = new DictationSession({
          serverUrl: lb.url,
          apiKey: key,
          config: { language: 'en' },
          backoffBaseMs: 100,
          backoffMaxMs: 1000,
          maxAttempts: 20,
        });
        const model = new TranscriptModel();
        const configured: Array<{ sessionId: string; resumed: boolean }> = [];
        const fatal: string[] = [];
        session.on('message', (m) => model.apply(m));
        session.on('generation', () => model.beginGeneration());
        session.on('configured', (c) => {
          configured.push({ sessionId: c.sessionId, resumed: c.resumed });
          model.dropProvisional();
        });
        session.on('error', (e) => e.fatal && fatal.push(`${e.code}: ${e.message}`));
        await session.start();
        const pcm = dictation();
        let killed: TestServer | undefined;
        for (let off = 0, frame = 0; off < pcm.length; off += 3200, frame++) {
          if (frame === 72) {
            // 7.2 s in, mid-way through the second sentence: the instance carrying the session dies.
            const id = session.sessionId!;
            killed = await waitFor(
              async () => {
                for (const s of instances) {
                  const info = await s.session(id).catch(() => undefined);
                  if (info?.connected === true) return s;
                }
                return undefined;
              },
              5000,
              'the instance carrying the session',
            );
            await killed.kill();
          }
          session.sendAudio(pcm.subarray(off, off + 3200));
          await sleep(25);
        }
        const result = await session.stop();
        assert.equal(result.reason, 'stopped', JSON.stringify(result));
        assert.deepEqual(fatal, []);
        assert.ok(killed, 'an instance was killed');
        assert.ok(configured.length >= 2, `configured ${JSON.stringify(configured)}`);
        assert.equal(configured.at(-1)!.resumed, true, 'the session was resumed on another instance');
        assert.equal(new Set(configured.map((c) => c.sessionId)).size, 1, 'one session id throughout');
        assert.equal(session.generation, 0, 'no new generation: the same service session');
        assert.deepEqual(model.committedText().split(/\s+/).filter(Boolean), DICTATED);
        assert.equal(session.audioStats.unrecoverableBytes, 0);
        const resumedOn = instances.filter((s) => s !== killed && /session restored from storage/.test(s.logs()));
        assert.equal(resumedOn.length, 1, 'restored on exactly one live instance');
        session.dispose();
      } finally {
        await lb?.stop();
      }
    });
  }
});
