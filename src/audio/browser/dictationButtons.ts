/**
 * The buttons of dictation microphones (Philips SpeechMike, Nuance PowerMic, foot controls) as the
 * `dictation_support` library reports them over WebHID in the capture page: a bit mask of `ButtonEvent`
 * values, sent again at every change. Here (pure) each press and release becomes a dictation action.
 */

/** `ButtonEvent` of dictation_support 1.0.5 (dist/index.d.ts): one bit per button. */
export const BUTTON_BITS = {
  REWIND: 1,
  PLAY: 2,
  FORWARD: 4,
  INS_OVR: 16,
  RECORD: 32,
  COMMAND: 64,
  STOP: 256,
  INSTR: 512,
  F1_A: 1024,
  F2_B: 2048,
  F3_C: 4096,
  F4_D: 8192,
  EOL_PRIO: 16384,
  TRANSCRIBE: 32768,
  TAB_BACKWARD: 65536,
  TAB_FORWARD: 131072,
  CUSTOM_LEFT: 262144,
  CUSTOM_RIGHT: 524288,
  ENTER_SELECT: 1048576,
} as const;
type ButtonName = keyof typeof BUTTON_BITS;

/**
 * What a button does: `record` toggles (record, or pause while recording) — or, in push-to-talk,
 * records while held; `pause`; `stop` ends the run; `nextField`, `previousField` move through a
 * template's fields; `scratchThat` deletes the last utterance; `playBack` plays the dictated sentence at
 * the cursor (proofreading's Play Back), pausing a recording first.
 */
const BUTTON_ACTIONS = ['record', 'pause', 'stop', 'nextField', 'previousField', 'scratchThat', 'playBack'] as const;
export type ButtonAction = (typeof BUTTON_ACTIONS)[number];

/** The default mapping: the buttons' printed meaning on the SpeechMike and the PowerMic. */
const DEFAULT_BUTTON_MAP: Readonly<Partial<Record<ButtonName, ButtonAction>>> = {
  RECORD: 'record',
  STOP: 'pause',
  EOL_PRIO: 'stop',
  TAB_FORWARD: 'nextField',
  TAB_BACKWARD: 'previousField',
  TRANSCRIBE: 'stop',
  PLAY: 'playBack',
};

/** The mapping with the user's changes (`{"F1_A": "scratchThat", "STOP": null}`); unknown names and actions are reported. */
export function buttonMap(user: unknown): { map: Partial<Record<ButtonName, ButtonAction>>; problems: string[] } {
  const map: Partial<Record<ButtonName, ButtonAction>> = { ...DEFAULT_BUTTON_MAP };
  const problems: string[] = [];
  if (user === undefined || user === null) return { map, problems };
  if (typeof user !== 'object' || Array.isArray(user)) return { map, problems: ['the button mapping is not an object'] };
  for (const [name, action] of Object.entries(user as Record<string, unknown>)) {
    if (!(name in BUTTON_BITS)) {
      problems.push(`unknown button "${name}"`);
      continue;
    }
    if (action === null || action === 'none') delete map[name as ButtonName];
    else if (typeof action === 'string' && (BUTTON_ACTIONS as readonly string[]).includes(action))
      map[name as ButtonName] = action as ButtonAction;
    else problems.push(`unknown action for "${name}"`);
  }
  return { map, problems };
}

/** One change of a button: pressed (`down`) or released. */
export interface ButtonChange {
  action: ButtonAction;
  down: boolean;
}

/** Turns the successive masks of one device into the presses and releases of mapped buttons. */
export class ButtonTracker {
  private last = 0;

  constructor(private readonly map: Partial<Record<ButtonName, ButtonAction>> = DEFAULT_BUTTON_MAP) {}

  update(mask: number): ButtonChange[] {
    if (!Number.isInteger(mask) || mask < 0 || mask > 0x7fffffff) return [];
    const changed = mask ^ this.last;
    this.last = mask;
    const out: ButtonChange[] = [];
    for (const [name, action] of Object.entries(this.map) as [ButtonName, ButtonAction][]) {
      const bit = BUTTON_BITS[name];
      if (changed & bit) out.push({ action, down: (mask & bit) !== 0 });
    }
    return out;
  }
}

type ButtonCommand = 'start' | 'pause' | 'stop' | 'nextField' | 'previousField' | 'scratchThat' | 'playBack';

/**
 * What a change asks of dictation, given its state and mode: `start` (record from idle or paused),
 * `pause`, `stop`, a field move, `scratchThat`, `playBack`, or nothing. Releases matter only to
 * push-to-talk's record.
 */
export function buttonCommand(change: ButtonChange, state: string, pushToTalk: boolean): ButtonCommand | undefined {
  if (change.action === 'record') {
    if (pushToTalk) return change.down ? (state === 'recording' ? undefined : 'start') : state === 'recording' ? 'pause' : undefined;
    if (!change.down) return undefined;
    return state === 'recording' ? 'pause' : 'start';
  }
  if (!change.down) return undefined;
  if (change.action === 'pause') return state === 'recording' ? 'pause' : undefined;
  return change.action;
}

/** What the buttons act on (the dictation controller and the editor's commands, in VS Code). */
export interface ButtonTargets {
  /** The dictation's state now (`idle`, `connecting`, `recording`, `paused`, `stopping`). */
  state(): string;
  request(r: 'start' | 'pause' | 'stop'): Promise<void>;
  field(direction: 'next' | 'previous'): Promise<void>;
  scratchThat(): Promise<void>;
  playBack(): Promise<void>;
}

/**
 * The buttons of the page's dictation microphones, mask by mask, into the targets' actions, one after
 * the other (a press acts once the one before it has). Play Back while recording pauses first: the
 * microphone would record the sentence played.
 */
export class ButtonRouter {
  private tracker: ButtonTracker;
  private queue: Promise<void> = Promise.resolve();

  constructor(
    private readonly targets: ButtonTargets,
    private map: Partial<Record<ButtonName, ButtonAction>> = DEFAULT_BUTTON_MAP,
    private pushToTalk = false,
    private readonly note: (line: string) => void = () => undefined,
  ) {
    this.tracker = new ButtonTracker(map);
  }

  /** A new mapping or mode (the buttons held are forgotten). */
  configure(map: Partial<Record<ButtonName, ButtonAction>>, pushToTalk: boolean): void {
    this.map = map;
    this.pushToTalk = pushToTalk;
    this.reset();
  }

  /** A new page: no button is held. */
  reset(): void {
    this.tracker = new ButtonTracker(this.map);
  }

  /** The buttons changed; resolves once every action they ask for has run (an action that fails is noted, the next ones run). */
  pressed(mask: number): Promise<void> {
    const changes = this.tracker.update(mask);
    const run = async (): Promise<void> => {
      for (const change of changes) {
        const command = buttonCommand(change, this.targets.state(), this.pushToTalk);
        if (!command) continue;
        this.note(`dictation microphone ${change.action} ${change.down ? 'pressed' : 'released'}: ${command}`);
        try {
          await this.act(command);
        } catch (e) {
          this.note(`dictation microphone ${command} failed: ${e instanceof Error ? e.message : String(e)}`);
        }
      }
    };
    this.queue = this.queue.then(run);
    return this.queue;
  }

  private async act(command: ButtonCommand): Promise<void> {
    const t = this.targets;
    if (command === 'nextField' || command === 'previousField') return t.field(command === 'nextField' ? 'next' : 'previous');
    if (command === 'scratchThat') return t.scratchThat();
    if (command === 'playBack') {
      if (t.state() === 'recording') await t.request('pause');
      return t.playBack();
    }
    return t.request(command);
  }
}
