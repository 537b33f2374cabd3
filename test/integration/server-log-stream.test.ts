/**
 * The service's log stream broken under it: stderr is a pipe whose reader is gone (a dead parent, a
 * closed terminal, `| head`). The service drops its log lines and goes on; it never logs the stream's
 * own error to the stream (which used to loop forever at full CPU), and SIGTERM still drains and exits.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { startServer } from '../helpers/server';
import { sleep, waitFor } from '../helpers/wait';

/** CPU seconds (user + system) the process has used so far, from /proc. */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

describe('service with a broken log stream (built service)', function () {
  this.timeout(30_000);

  it('stderr closed by its reader: the service keeps serving without spinning, and SIGTERM exits 0', async function () {
    if (process.platform !== 'linux') this.skip();
    const server = await startServer({ env: { DICTEE_LOG_LEVEL: 'debug' } });
    const child = server.process();
    try {
      child.stderr!.destroy(); // the reader is gone: the next write gets EPIPE
      // Within 5 s: the loop of logging its own EPIPE starved the event loop, so requests went unanswered.
      const health = async (): Promise<number> => (await fetch(`${server.url}/healthz`, { signal: AbortSignal.timeout(5000) })).status;
      // Requests the service logs (at debug): the first write fails, later lines are dropped.
      for (let i = 0; i < 5; i++) assert.equal(await health(), 200);
      await fetch(`${server.url}/v1/no-such-path`, { signal: AbortSignal.timeout(5000) });
      // Over 1.5 s of requests paced every 100 ms, an idle service uses a few ms of CPU; the loop of
      // logging its own EPIPE took all it could get (0.4 to 1 core).
      const cpu0 = cpuSeconds(child.pid!);
      const t0 = Date.now();
      for (let i = 0; i < 15; i++) {
        assert.equal(await health(), 200, 'the service still answers');
        await sleep(100);
      }
      const perSecond = (cpuSeconds(child.pid!) - cpu0) / ((Date.now() - t0) / 1000);
      assert.ok(
        perSecond < 0.2,
        `the service used ${perSecond.toFixed(2)} CPU s per second while idle (spinning on its broken log stream)`,
      );
      child.kill('SIGTERM');
      await waitFor(() => child.exitCode !== null || child.signalCode !== null, 10_000, 'the service to exit after SIGTERM');
      assert.equal(child.exitCode, 0, `exit code ${child.exitCode}, signal ${child.signalCode}`);
    } finally {
      if (child.exitCode === null && child.signalCode === null) await server.kill();
    }
  });
});
