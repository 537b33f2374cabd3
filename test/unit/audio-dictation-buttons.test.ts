/**
 * Dictation microphones' buttons: the dictation_support library as the page gets it (its npm package's dist/index.js) runs on a fake
 * WebHID, is fed the input reports its device definitions read (PowerMic III: a 16-bit mask at byte 1;
 * foot control: byte 0), and its button masks go through Dictée's mapping.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import * as vm from 'node:vm';
import { BUTTON_BITS, ButtonTracker, buttonCommand, buttonMap, type ButtonChange } from '../../src/audio/browser/dictationButtons';

type Listener = (e: unknown) => unknown;
class FakeTarget {
  private readonly l = new Map<string, Set<Listener>>();
  addEventListener(t: string, f: Listener): void {
    if (!this.l.has(t)) this.l.set(t, new Set());
    this.l.get(t)!.add(f);
  }
  removeEventListener(t: string, f: Listener): void {
    this.l.get(t)?.delete(f);
  }
  async dispatch(t: string, e: unknown): Promise<void> {
    for (const f of this.l.get(t) ?? []) await f(e);
  }
}
class FakeDevice extends FakeTarget {
  opened = false;
  constructor(
    readonly vendorId: number,
    readonly productId: number,
    readonly collections: { usagePage: number; usage: number }[],
  ) {
    super();
  }
  async open(): Promise<void> {
    this.opened = true;
  }
  async close(): Promise<void> {
    this.opened = false;
  }
  async sendReport(): Promise<void> {}
  report(bytes: number[]): Promise<void> {
    return this.dispatch('inputreport', { data: new DataView(new Uint8Array(bytes).buffer), device: this, reportId: 0 });
  }
}

interface Library {
  DictationDeviceManager: new (hid: unknown) => {
    init(): Promise<void>;
    addButtonEventListener(l: (d: unknown, mask: number) => void): void;
    getDevices(): unknown[];
  };
  ButtonEvent: Record<string, number>;
}
function library(): Library {
  const code = readFileSync(require.resolve('dictation_support'), 'utf8');
  const self: { DictationSupport?: Library } = {};
  vm.runInNewContext(code, { self, console, Promise, Map, Set, Object, Uint8Array, DataView, Error, setTimeout, clearTimeout });
  assert.ok(self.DictationSupport, 'the library defines self.DictationSupport, as in the page');
  return self.DictationSupport;
}

async function masksOf(device: FakeDevice, reports: number[][]): Promise<number[]> {
  const lib = library();
  const hid = Object.assign(new FakeTarget(), { getDevices: async () => [device], requestDevice: async () => [device] });
  const manager = new lib.DictationDeviceManager(hid);
  const masks: number[] = [];
  manager.addButtonEventListener((_d, mask) => void masks.push(mask));
  await manager.init();
  assert.equal(manager.getDevices().length, 1, 'the library took the device');
  for (const r of reports) await device.report(r);
  return masks;
}

describe('dictation microphones: buttons', () => {
  it("our bit values are the library's ButtonEvent", () => {
    const lib = library();
    for (const [name, bit] of Object.entries(BUTTON_BITS)) assert.equal(lib.ButtonEvent[name], bit, name);
  });

  it('PowerMic III: record toggles, the Tab buttons move through fields, release does nothing in toggle mode', async () => {
    // byte 0 report id, bytes 1-2 the button mask: record bit 2, tab forward bit 3, tab back bit 1
    const pm3 = new FakeDevice(0x0554, 0x1001, [{ usagePage: 1, usage: 0 }]);
    const masks = await masksOf(pm3, [
      [0, 4, 0],
      [0, 0, 0],
      [0, 8, 0],
      [0, 0, 0],
      [0, 2, 0],
      [0, 0, 0],
    ]);
    assert.deepEqual(masks, [BUTTON_BITS.RECORD, 0, BUTTON_BITS.TAB_FORWARD, 0, BUTTON_BITS.TAB_BACKWARD, 0]);
    const t = new ButtonTracker();
    const changes = masks.flatMap((m) => t.update(m));
    assert.deepEqual(changes, [
      { action: 'record', down: true },
      { action: 'record', down: false },
      { action: 'nextField', down: true },
      { action: 'nextField', down: false },
      { action: 'previousField', down: true },
      { action: 'previousField', down: false },
    ]);
    const commands = (state: string, ptt: boolean) => changes.map((c: ButtonChange) => buttonCommand(c, state, ptt)).filter(Boolean);
    assert.deepEqual(commands('idle', false), ['start', 'nextField', 'previousField']);
    assert.deepEqual(commands('recording', false), ['pause', 'nextField', 'previousField']);
  });

  it('PowerMic III in push-to-talk: record held records, released pauses', async () => {
    const pm3 = new FakeDevice(0x0554, 0x1001, [{ usagePage: 1, usage: 0 }]);
    const masks = await masksOf(pm3, [
      [0, 4, 0],
      [0, 4 | 8, 0],
      [0, 8, 0],
      [0, 0, 0],
    ]);
    const t = new ButtonTracker();
    const [press, tab, release] = masks.slice(0, 3).map((m) => t.update(m));
    assert.equal(buttonCommand(press![0]!, 'paused', true), 'start');
    assert.deepEqual(tab, [{ action: 'nextField', down: true }], 'another button while record is held');
    assert.equal(buttonCommand(release![0]!, 'recording', true), 'pause');
    assert.equal(buttonCommand(release![0]!, 'idle', true), undefined);
  });

  it('foot control: the right pedal (EOL) ends dictation with the default mapping; a user mapping changes it', async () => {
    const foot = new FakeDevice(0x0911, 6212, [{ usagePage: 1, usage: 4 }]);
    const masks = await masksOf(foot, [[8], [0], [2], [0]]);
    assert.deepEqual(masks, [BUTTON_BITS.EOL_PRIO, 0, BUTTON_BITS.PLAY, 0]);
    const def = new ButtonTracker();
    assert.deepEqual(def.update(masks[0]!), [{ action: 'stop', down: true }]);
    const { map, problems } = buttonMap({ PLAY: 'record', EOL_PRIO: null, NOPE: 'record', STOP: 'explode' });
    assert.deepEqual(problems, ['unknown button "NOPE"', 'unknown action for "STOP"']);
    const mine = new ButtonTracker(map);
    assert.deepEqual(
      masks.flatMap((m) => mine.update(m)),
      [
        { action: 'record', down: true },
        { action: 'record', down: false },
      ],
    );
  });

  it('masks that are not button masks do nothing', () => {
    const t = new ButtonTracker();
    assert.deepEqual(t.update(-1), []);
    assert.deepEqual(t.update(1.5), []);
    assert.deepEqual(t.update(2 ** 40), []);
    assert.deepEqual(buttonMap('x').problems, ['the button mapping is not an object']);
  });
});
