/**
 * The input devices a recorder can record from, for the microphone picker:
 * - Linux (sox, rec): the PulseAudio / PipeWire sources (`pactl -f json list sources`, or `pactl list
 *   short sources` where pactl has no JSON), the default one marked; sox records them with
 *   AUDIODRIVER=pulseaudio (spawn.ts, soxDeviceEnv);
 * - Linux (arecord): the ALSA capture devices of `arecord -L`;
 * - macOS: the CoreAudio devices with inputs (`system_profiler SPAudioDataType -json`), which sox's
 *   coreaudio driver opens by name;
 * - Windows: none listed (SoX's waveaudio driver gives no list); the picker offers a name to type.
 * The parsers are pure and tested on recorded outputs; `listInputDevices` runs the programs.
 */
import type { RecorderName } from './spawn';
import { runProgram, type ProgramResult } from './spawn';

interface InputDevice {
  /** What `dictee.audio.device` is set to. */
  id: string;
  /** A human name (the device's description). */
  label: string;
  /** The system's default input. */
  isDefault: boolean;
  /** A monitor of an output (what is played), not a microphone: listed after the microphones. */
  isMonitor: boolean;
}

interface DeviceListing {
  devices: InputDevice[];
  /** Why the list is empty (the editor puts it in words of the user's language). */
  problem?: DeviceProblem;
}

/** Why no device could be listed. */
export type DeviceProblem = 'arecordFailed' | 'noPactl' | 'noSoundServer' | 'pactlFailed' | 'systemProfilerFailed' | 'noListOnThisSystem';

interface PactlSource {
  name?: unknown;
  description?: unknown;
  monitor_of_sink?: unknown;
  properties?: Record<string, unknown>;
}

/** Sources from `pactl -f json list sources`. */
export function parsePactlJson(json: string, defaultName: string | undefined): InputDevice[] {
  const data = JSON.parse(json) as unknown;
  if (!Array.isArray(data)) throw new Error('pactl: not a list of sources');
  return sortDevices(
    (data as PactlSource[])
      .filter((s) => typeof s.name === 'string')
      .map((s) => {
        const name = s.name as string;
        const monitor =
          (typeof s.monitor_of_sink === 'string' && s.monitor_of_sink !== 'n/a') ||
          s.properties?.['device.class'] === 'monitor' ||
          name.endsWith('.monitor');
        return {
          id: name,
          label: typeof s.description === 'string' && s.description ? s.description : name,
          isDefault: name === defaultName,
          isMonitor: monitor,
        };
      }),
  );
}

/** Sources from `pactl list short sources` (index, name, module, sample spec, state; tab-separated). */
export function parsePactlShort(text: string, defaultName: string | undefined): InputDevice[] {
  const out: InputDevice[] = [];
  for (const line of text.split('\n')) {
    const name = line.split('\t')[1]?.trim();
    if (!name) continue;
    out.push({ id: name, label: name, isDefault: name === defaultName, isMonitor: name.endsWith('.monitor') });
  }
  return sortDevices(out);
}

/** ALSA capture devices from `arecord -L` (a name line, then indented description lines). */
export function parseArecordList(text: string): InputDevice[] {
  const out: InputDevice[] = [];
  let current: InputDevice | undefined;
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    if (!/^\s/.test(line)) {
      current = { id: line.trim(), label: line.trim(), isDefault: line.trim() === 'default', isMonitor: false };
      if (current.id !== 'null') out.push(current);
    } else if (current && current.label === current.id) {
      current.label = `${line.trim()} (${current.id})`;
    }
  }
  return out;
}

interface ProfilerItem {
  _name?: unknown;
  coreaudio_device_input?: unknown;
  coreaudio_default_audio_input_device?: unknown;
  _items?: ProfilerItem[];
}

/** CoreAudio devices with inputs from `system_profiler SPAudioDataType -json`. */
export function parseSystemProfiler(json: string): InputDevice[] {
  const data = JSON.parse(json) as { SPAudioDataType?: ProfilerItem[] };
  const out: InputDevice[] = [];
  const visit = (items: ProfilerItem[] | undefined): void => {
    for (const it of items ?? []) {
      if (typeof it._name === 'string' && it.coreaudio_device_input !== undefined) {
        out.push({ id: it._name, label: it._name, isDefault: it.coreaudio_default_audio_input_device === 'spaudio_yes', isMonitor: false });
      }
      visit(it._items);
    }
  };
  visit(data.SPAudioDataType);
  return sortDevices(out);
}

/** Microphones first (the default first among them), then monitors. */
function sortDevices(d: InputDevice[]): InputDevice[] {
  return [...d].sort((a, b) => Number(a.isMonitor) - Number(b.isMonitor) || Number(b.isDefault) - Number(a.isDefault));
}

function failed(r: ProgramResult): boolean {
  return r.error !== undefined || r.code !== 0;
}

/** Lists the input devices for `recorder` on this machine. Never rejects. */
export async function listInputDevices(
  recorder: RecorderName,
  platform: NodeJS.Platform = process.platform,
  env: NodeJS.ProcessEnv = process.env,
): Promise<DeviceListing> {
  if (platform === 'linux' && recorder === 'arecord') {
    const r = await runProgram('arecord', ['-L'], { env });
    if (failed(r)) return { devices: [], problem: 'arecordFailed' };
    return { devices: parseArecordList(r.stdout) };
  }
  if (platform === 'linux') {
    const def = await runProgram('pactl', ['get-default-source'], { env });
    if (def.error) return { devices: [], problem: 'noPactl' };
    if (failed(def)) return { devices: [], problem: 'noSoundServer' };
    const defaultName = def.stdout.trim() || undefined;
    const json = await runProgram('pactl', ['-f', 'json', 'list', 'sources'], { env });
    if (!failed(json)) {
      try {
        return { devices: parsePactlJson(json.stdout, defaultName) };
      } catch {
        /* an older pactl: the short listing below */
      }
    }
    const short = await runProgram('pactl', ['list', 'short', 'sources'], { env });
    if (failed(short)) return { devices: [], problem: 'pactlFailed' };
    return { devices: parsePactlShort(short.stdout, defaultName) };
  }
  if (platform === 'darwin') {
    const r = await runProgram('system_profiler', ['SPAudioDataType', '-json'], { env, timeoutMs: 15_000 });
    if (failed(r)) return { devices: [], problem: 'systemProfilerFailed' };
    try {
      return { devices: parseSystemProfiler(r.stdout) };
    } catch {
      return { devices: [], problem: 'systemProfilerFailed' };
    }
  }
  return { devices: [], problem: 'noListOnThisSystem' };
}
