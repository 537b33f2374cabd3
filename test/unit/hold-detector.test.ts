import assert from 'node:assert/strict';
import { DEFAULT_HOLD_TIMING, HoldDetector, type HoldEvent, type Timers } from '../../src/extension/holdDetector';

/** A clock moved by hand: timers fire when `advance` passes their time. */
class ManualTimers implements Timers {
  private t = 0;
  private pending = new Map<number, { at: number; fn: () => void }>();
  private next = 1;
  now(): number {
    return this.t;
  }
  set(fn: () => void, ms: number): unknown {
    const id = this.next++;
    this.pending.set(id, { at: this.t + ms, fn });
    return id;
  }
  clear(handle: unknown): void {
    this.pending.delete(handle as number);
  }
  advance(ms: number): void {
    const end = this.t + ms;
    for (;;) {
      const due = [...this.pending.entries()].filter(([, p]) => p.at <= end).sort((a, b) => a[1].at - b[1].at)[0];
      if (!due) break;
      this.pending.delete(due[0]);
      this.t = due[1].at;
      due[1].fn();
    }
    this.t = end;
  }
}

function setup(): { d: HoldDetector; timers: ManualTimers; events: [number, HoldEvent][] } {
  const timers = new ManualTimers();
  const events: [number, HoldEvent][] = [];
  const d = new HoldDetector((e) => events.push([timers.now(), e]), DEFAULT_HOLD_TIMING, timers);
  return { d, timers, events };
}

/** Holds the key: the first keydown, the repeat delay, then repeats every `interval` ms until `holdMs`. */
function hold(d: HoldDetector, timers: ManualTimers, holdMs: number, delay = 500, interval = 33): number {
  d.key();
  timers.advance(delay);
  let t = delay;
  while (t <= holdMs) {
    d.key();
    timers.advance(interval);
    t += interval;
  }
  return t - interval;
}

describe('push-to-talk hold detection (key repeats)', () => {
  it('a held key is one press, and one release three repeat intervals after the last repeat', () => {
    const { d, timers, events } = setup();
    const last = hold(d, timers, 3000);
    timers.advance(1000);
    assert.deepEqual(events.map((e) => e[1]), ['press', 'release']);
    // 3 × 33 ms is under the 150 ms floor: the release comes 150 ms after the last repeat.
    assert.equal(events[1]![0] - last, 150);
  });

  it('a slow repeat rate widens the gap (3 × interval), up to 600 ms', () => {
    const slow = setup();
    const last = hold(slow.d, slow.timers, 3000, 500, 100);
    slow.timers.advance(2000);
    assert.equal(slow.events[1]![0] - last, 300);
    const slowest = setup();
    const last2 = hold(slowest.d, slowest.timers, 5000, 500, 400);
    slowest.timers.advance(2000);
    assert.equal(slowest.events[1]![0] - last2, 600);
  });

  it('no release during the repeat delay, however long it is (up to the tap limit)', () => {
    const { d, timers, events } = setup();
    hold(d, timers, 3000, 1500);
    assert.deepEqual(events.map((e) => e[1]), ['press']);
  });

  it('a short press latches: recording goes on until the next press, whose own repeats are ignored', () => {
    const { d, timers, events } = setup();
    d.key();
    timers.advance(5000);
    assert.deepEqual(events.map((e) => e[1]), ['press', 'latched']);
    hold(d, timers, 1500);
    timers.advance(3000);
    assert.deepEqual(events.map((e) => e[1]), ['press', 'latched', 'release']);
    // Then the key works again from the start.
    hold(d, timers, 1000);
    timers.advance(1000);
    assert.deepEqual(events.map((e) => e[1]).slice(3), ['press', 'release']);
  });

  it('reset forgets a held key (the run ended by other means)', () => {
    const { d, timers, events } = setup();
    d.key();
    timers.advance(600);
    d.key();
    d.reset();
    timers.advance(5000);
    assert.deepEqual(events.map((e) => e[1]), ['press']);
    d.key();
    assert.deepEqual(events.map((e) => e[1]), ['press', 'press']);
  });
});
