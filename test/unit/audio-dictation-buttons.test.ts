/**
 * Dictation microphones' buttons and record LED: the dictation_support library as the page gets it (its npm package's dist/index.js)
 * runs on a fake WebHID (no device here), is fed the input reports its device definitions read (PowerMic III: a 16-bit mask at byte 1;
 * foot control: byte 0), and its button masks go through Dictée's mapping and router; the LED of each dictation state is the output
 * report the library sends for it.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import * as vm from 'node:vm';
import {
  BUTTON_BITS,
  ButtonRouter,
  ButtonTracker,
  buttonCommand,
  buttonMap,
  type ButtonChange,
  type ButtonTargets,
} from '../../src/audio/browser/dictationButtons';
import { PM3_LED, SIMPLE_LED, ledFor, ledTable } from '../../src/audio/browser/dictationLeds';

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
  /** Output reports sent to the device (its LEDs). */
  readonly sent: { id: number; data: number[] }[] = [];
  async sendReport(id: number, data: Uint8Array): Promise<void> {
    this.sent.push({ id, data: [...data] });
  }
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
  SimpleLedState: Record<string, number>;
  LedStatePM3: Record<string, number>;
  SpeechMikeHidDevice: { create(d: FakeDevice): { setSimpleLedState(s: number): Promise<void> } };
  PowerMic3Device: { create(d: FakeDevice): { setLed(s: number): Promise<void> } };
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

  it('PowerMic III: PLAY plays back (default), pausing a recording first; a mapped CUSTOM_LEFT scratches that', async () => {
    // PLAY bit 6 of the mask at byte 1, CUSTOM_LEFT bit 7
    const pm3 = new FakeDevice(0x0554, 0x1001, [{ usagePage: 1, usage: 0 }]);
    const masks = await masksOf(pm3, [
      [0, 64, 0],
      [0, 0, 0],
      [0, 128, 0],
      [0, 0, 0],
    ]);
    assert.deepEqual(masks, [BUTTON_BITS.PLAY, 0, BUTTON_BITS.CUSTOM_LEFT, 0]);
    const done: string[] = [];
    let state = 'recording';
    const targets: ButtonTargets = {
      state: () => state,
      request: async (r) => {
        done.push(r);
        if (r === 'pause') state = 'paused';
      },
      field: async (d) => void done.push(`${d}Field`),
      scratchThat: async () => void done.push('scratchThat'),
      playBack: async () => void done.push('playBack'),
    };
    const router = new ButtonRouter(targets);
    for (const m of masks) await router.pressed(m);
    assert.deepEqual(done, ['pause', 'playBack'], 'CUSTOM_LEFT is not mapped by default');
    done.length = 0;
    router.configure(buttonMap({ CUSTOM_LEFT: 'scratchThat' }).map, false);
    for (const m of masks) await router.pressed(m);
    assert.deepEqual(done, ['playBack', 'scratchThat'], 'paused: Play Back plays without a pause');
  });

  it('foot control: the middle pedal (PLAY) plays back; an action that fails does not stop the next', async () => {
    const foot = new FakeDevice(0x0911, 6212, [{ usagePage: 1, usage: 4 }]);
    const masks = await masksOf(foot, [[2], [0], [1], [0]]);
    assert.deepEqual(masks, [BUTTON_BITS.PLAY, 0, BUTTON_BITS.REWIND, 0]);
    const done: string[] = [];
    const notes: string[] = [];
    const router = new ButtonRouter(
      {
        state: () => 'paused',
        request: async (r) => void done.push(r),
        field: async () => undefined,
        scratchThat: async () => void done.push('scratchThat'),
        playBack: async () => {
          throw new Error('no player');
        },
      },
      buttonMap({ REWIND: 'scratchThat' }).map,
      false,
      (l) => notes.push(l),
    );
    await Promise.all(masks.map((m) => router.pressed(m)));
    assert.deepEqual(done, ['scratchThat']);
    assert.ok(notes.includes('dictation microphone playBack failed: no player'), notes.join('\n'));
  });
});

describe('dictation microphones: the record LED', () => {
  it("our LED values are the library's SimpleLedState and LedStatePM3", () => {
    const lib = library();
    for (const [name, v] of Object.entries(SIMPLE_LED)) assert.equal(lib.SimpleLedState[name], v, name);
    for (const [name, v] of Object.entries(PM3_LED)) assert.equal(lib.LedStatePM3[name], v, name);
  });

  it('recording: red and steady; paused or connecting: blinking (PowerMic III: green); idle, stopping, unknown: off', () => {
    assert.deepEqual(ledFor('recording'), { simple: SIMPLE_LED.RECORD_OVERWRITE, pm3: PM3_LED.RED });
    assert.deepEqual(ledFor('paused'), { simple: SIMPLE_LED.RECORD_STANDBY_OVERWRITE, pm3: PM3_LED.GREEN });
    assert.deepEqual(ledFor('connecting'), ledFor('paused'));
    for (const s of ['idle', 'stopping', 'nonsense', '__proto__'])
      assert.deepEqual(ledFor(s), { simple: SIMPLE_LED.OFF, pm3: PM3_LED.OFF }, s);
    assert.deepEqual(Object.keys(ledTable()).sort(), ['connecting', 'idle', 'paused', 'recording', 'stopping']);
  });

  it("the library's output reports: SpeechMike record LED red on, red blinking, off; PowerMic III red, green, off", async () => {
    const lib = library();
    const sm = new FakeDevice(0x0911, 0x0c1c, [{ usagePage: 0xffa0, usage: 1 }]);
    const speechMike = lib.SpeechMikeHidDevice.create(sm);
    for (const s of ['recording', 'paused', 'idle']) await speechMike.setSimpleLedState(ledFor(s).simple);
    // SET_LED (2), then the LED bytes: record LED red in bits 2-3 of byte 6 (3 on, 1 blinking slowly)
    assert.deepEqual(
      sm.sent.map((r) => r.data),
      [
        [2, 0, 0, 0, 0, 0, 3 << 2, 0, 0],
        [2, 0, 0, 0, 0, 0, 1 << 2, 0, 0],
        [2, 0, 0, 0, 0, 0, 0, 0, 0],
      ],
    );
    const pm = new FakeDevice(0x0554, 0x1001, [{ usagePage: 1, usage: 0 }]);
    const powerMic = lib.PowerMic3Device.create(pm);
    for (const s of ['recording', 'paused', 'idle']) await powerMic.setLed(ledFor(s).pm3);
    assert.deepEqual(
      pm.sent.map((r) => r.data),
      [[1], [2], [0]],
    );
  });
});
