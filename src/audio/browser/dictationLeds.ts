/**
 * The record LED of dictation microphones, driven from the dictation's state (pure; the capture page
 * applies it to each paired device through the dictation_support library). The SpeechMike family and the
 * PowerMic 4 take the library's `SimpleLedState`; the PowerMic III its own `LedStatePM3` (one LED, red or
 * green, no blinking). Foot controls have no LED.
 */

/** `SimpleLedState` of dictation_support 1.0.5: RECORD_* lights the record LED green (insert) or red (overwrite), STANDBY_* blinks it slowly. */
export const SIMPLE_LED = {
  OFF: 0,
  RECORD_INSERT: 1,
  RECORD_OVERWRITE: 2,
  RECORD_STANDBY_INSERT: 3,
  RECORD_STANDBY_OVERWRITE: 4,
} as const;

/** `LedStatePM3` of dictation_support 1.0.5. */
export const PM3_LED = { OFF: 0, RED: 1, GREEN: 2 } as const;

/** What one state shows: `simple` for SpeechMike and PowerMic 4, `pm3` for the PowerMic III. */
interface LedPlan {
  simple: number;
  pm3: number;
}

/**
 * Recording: the record LED red and steady (the library's overwrite state: Dictée has no insert and
 * overwrite modes, and red is what both families show while recording). Paused, or connecting before
 * the first sound: red, blinking slowly (the PowerMic III cannot blink: green, ready). Not dictating, or
 * finishing: off.
 */
const PLANS: Readonly<Record<string, LedPlan>> = {
  recording: { simple: SIMPLE_LED.RECORD_OVERWRITE, pm3: PM3_LED.RED },
  paused: { simple: SIMPLE_LED.RECORD_STANDBY_OVERWRITE, pm3: PM3_LED.GREEN },
  connecting: { simple: SIMPLE_LED.RECORD_STANDBY_OVERWRITE, pm3: PM3_LED.GREEN },
  stopping: { simple: SIMPLE_LED.OFF, pm3: PM3_LED.OFF },
  idle: { simple: SIMPLE_LED.OFF, pm3: PM3_LED.OFF },
};

/** The LEDs of a dictation state; off for a state not known. */
export function ledFor(state: string): LedPlan {
  return Object.prototype.hasOwnProperty.call(PLANS, state) ? PLANS[state]! : PLANS.idle!;
}

/** Every state's LEDs, as the page is told them (its configuration). */
export function ledTable(): Record<string, LedPlan> {
  return Object.fromEntries(Object.keys(PLANS).map((s) => [s, ledFor(s)]));
}
