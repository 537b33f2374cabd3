/**
 * How the service's process ends (src/server/lifecycle.ts): signals drain and exit 0; an uncaught exception
 * drains within a deadline and exits 1. A fake service stands in for the drain (an uncaught exception cannot
 * be caused in the real service from outside), and a plain EventEmitter for the process.
 */
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { Lifecycle, STOP_SIGNALS } from '../../src/server/lifecycle';
import { createLogger } from '../../src/server/log';

/** A fake service: its drain resolves (or fails) when the test says so, and counts how often it was asked. */
class FakeService {
  stops = 0;
  private finish: ((failure?: Error) => void) | undefined;
  stop = (): Promise<void> => {
    this.stops++;
    return new Promise<void>((resolve, reject) => (this.finish = (failure) => (failure ? reject(failure) : resolve())));
  };
  drained(failure?: Error): void {
    assert.ok(this.finish, 'the drain was started');
    this.finish(failure);
  }
}

function setup(fatalDrainMs = 60_000) {
  const service = new FakeService();
  const lines: Array<Record<string, unknown>> = [];
  const log = createLogger({ level: 'info', write: (l) => lines.push(JSON.parse(l) as Record<string, unknown>) });
  let onExit: (code: number) => void = () => undefined;
  const exitCodes: number[] = [];
  const exit = new Promise<number>((resolve) => (onExit = resolve));
  const lifecycle = new Lifecycle({
    log,
    stop: service.stop,
    exit: (code) => {
      exitCodes.push(code);
      onExit(code);
    },
    fatalDrainMs,
  });
  const proc = new EventEmitter();
  lifecycle.install(proc);
  return { service, lines, exit, exitCodes, proc, msgs: () => lines.map((l) => l.msg) };
}

/** Lets every settled promise's handlers run (the drain's `then`). */
const turn = (): Promise<void> => new Promise((r) => setImmediate(r));

describe('the service process ends (lifecycle)', () => {
  for (const signal of STOP_SIGNALS) {
    it(`${signal}: drains once, then exits 0 (not before the drain is done)`, async () => {
      const t = setup();
      t.proc.emit(signal);
      t.proc.emit(signal);
      t.proc.emit('SIGTERM');
      assert.equal(t.service.stops, 1);
      await turn();
      assert.deepEqual(t.exitCodes, [], 'no exit while the drain runs');
      t.service.drained();
      assert.equal(await t.exit, 0);
      assert.deepEqual(t.exitCodes, [0]);
      assert.deepEqual(t.msgs(), ['signal received']);
      assert.equal(t.lines[0]!.signal, signal);
    });
  }

  it('a drain that fails after a signal: logged, exit 1', async () => {
    const t = setup();
    t.proc.emit('SIGTERM');
    t.service.drained(new Error('the database is gone'));
    assert.equal(await t.exit, 1);
    assert.deepEqual(t.msgs(), ['signal received', 'shutdown failed']);
  });

  it('an uncaught exception: logged, the service drains, then the process exits 1', async () => {
    const t = setup();
    t.proc.emit('uncaughtException', new Error('boom in a timer'));
    assert.equal(t.service.stops, 1, 'the drain starts at once');
    const [line] = t.lines;
    assert.equal(line!.level, 'error');
    assert.match(String(line!.msg), /uncaught exception: the process state is undefined; draining, then exiting with status 1/);
    assert.equal((line!.error as { message: string }).message, 'boom in a timer');
    await turn();
    assert.deepEqual(t.exitCodes, [], 'no exit while the drain runs');
    t.service.drained();
    assert.equal(await t.exit, 1);
    assert.deepEqual(t.exitCodes, [1]);
  });

  it('an uncaught exception whose drain never ends: the process exits 1 at the deadline', async () => {
    const t = setup(50);
    const started = Date.now();
    t.proc.emit('uncaughtException', new Error('boom'));
    assert.equal(await t.exit, 1);
    assert.ok(Date.now() - started >= 45, 'not before the deadline');
    assert.match(String(t.msgs().at(-1)), /did not finish in time after an uncaught exception/);
    t.service.drained(); // late: nothing more happens
    await turn();
    assert.deepEqual(t.exitCodes, [1]);
  });

  it("an uncaught exception during a signal's drain: that drain goes on, under the deadline, and the exit is 1", async () => {
    const t = setup(50);
    t.proc.emit('SIGTERM');
    t.proc.emit('uncaughtException', new Error('boom while draining'));
    t.proc.emit('uncaughtException', new Error('and again'));
    assert.equal(t.service.stops, 1);
    assert.equal(await t.exit, 1);
    assert.deepEqual(t.exitCodes, [1]);
  });

  it('a drain that throws at once after an uncaught exception: exit 1 all the same', async () => {
    const lines: string[] = [];
    let code: number | undefined;
    const lifecycle = new Lifecycle({
      log: createLogger({ write: (l) => lines.push(l) }),
      stop: () => {
        throw new Error('no service');
      },
      exit: (c) => (code = c),
      fatalDrainMs: 60_000,
    });
    lifecycle.fatal(new Error('boom'));
    await turn();
    assert.equal(code, 1);
    assert.match(lines.at(-1)!, /shutdown failed/);
  });

  it('an unhandled rejection is logged and the service goes on', async () => {
    const t = setup();
    t.proc.emit('unhandledRejection', new Error('a promise nobody awaited'));
    await turn();
    assert.equal(t.service.stops, 0);
    assert.deepEqual(t.exitCodes, []);
    assert.deepEqual(t.msgs(), ['unhandled rejection']);
  });
});
