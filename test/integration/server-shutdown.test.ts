/** SIGTERM / SIGINT / SIGHUP drain of the BUILT service. */
import assert from 'node:assert/strict';
import { WsProbe, startServer, withServer } from '../helpers/server';
import { framesOf, silence, speechPcm } from '../helpers/speech';

describe('server shutdown drain (built service)', function () {
  this.timeout(30000);

  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) {
    it(`${signal}: live sessions get stopping/stopped with their pending text final, close 1000, exit 0`, async () => {
      await withServer({}, async (server) => {
        const { key } = await server.createKey();
        const p = new WsProbe(server.wsUrl, { header: key });
        await p.configure({ language: 'en', silence_threshold: 5, engine_endpointing: 0.3, flush_timeout: 30 });
        const idle = new WsProbe(server.wsUrl, { header: key }); // connected, never configured
        await idle.opened;
        for (const f of framesOf(Buffer.concat([await speechPcm('Testing the drain of the service.'), silence(300)]))) p.sendAudio(f);
        await p.waitFor((m) => m.type === 'transcript');
        await p.roundTrip(); // every frame handled
        assert.equal(p.ofType('transcript').filter((m) => m.status === 'final').length, 0, 'nothing final yet');
        const exited = new Promise<number | null>((resolve) => server.process().once('exit', (code) => resolve(code)));
        server.process().kill(signal);
        assert.equal(await exited, 0);
        assert.equal((await p.closed).code, 1000);
        assert.equal((await idle.closed).code, 1001);
        const statuses = p.ofType('status').map((s) => s.state);
        assert.deepEqual(statuses, ['stopping', 'stopped']);
        const finals = p.ofType('transcript').filter((m) => m.status === 'final');
        assert.ok(finals.length > 0, 'pending text made final');
        const lastStreaming = p
          .ofType('transcript')
          .filter((m) => m.status !== 'final')
          .pop()!;
        assert.equal(finals.map((f) => f.text).join(' '), lastStreaming.text);
        assert.equal(p.ofType('batch.replace').length, 1, 'proofread at the drain');
        assert.match(server.logs(), /shutdown complete/);
      });
    });
  }
});
