/**
 * The one module through which Dictée starts child processes: the recorder (through
 * node-record-lpcm16, which spawns it) and a `which`-style lookup of binaries on PATH.
 * Keeping it here means the recorder can be exercised with a real child process in tests and is
 * started nowhere else.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';

/** Looks `name` up on PATH like `which`; returns the absolute path or undefined. */
export function which(
  name: string,
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
): string | undefined {
  if (name.includes('/') || (platform === 'win32' && name.includes('\\'))) {
    return isExecutable(name, platform) ? path.resolve(name) : undefined;
  }
  const pathVar = env.PATH ?? env.Path ?? '';
  const exts = platform === 'win32' ? ['', ...(env.PATHEXT ?? '.EXE;.CMD;.BAT;.COM').split(';').filter(Boolean)] : [''];
  const sep = platform === 'win32' ? ';' : ':';
  for (const dir of pathVar.split(sep)) {
    if (!dir) continue;
    for (const ext of exts) {
      const candidate = path.join(dir, name + ext);
      if (isExecutable(candidate, platform)) return candidate;
    }
  }
  return undefined;
}

function isExecutable(file: string, platform: NodeJS.Platform): boolean {
  try {
    if (!statSync(file).isFile()) return false;
    if (platform !== 'win32') accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Whether a process with this pid exists (signal 0 probe). */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The programs that can record the microphone, the default first. */
export const RECORDERS = ['sox', 'rec', 'arecord'] as const;
export type RecorderName = (typeof RECORDERS)[number];
export const DEFAULT_RECORDER: RecorderName = 'sox';

interface RecorderSpawnOptions {
  recorder: RecorderName;
  sampleRate: number;
  channels: number;
  /** Empty: the system default device. */
  device: string;
}

/** The running recorder: its process and the stream of raw PCM on its stdout. */
export interface RecorderProcess {
  process: ChildProcess;
  stream: Readable;
}

interface LpcmRecording {
  process: ChildProcess;
  stream(): Readable;
}
interface LpcmModule {
  record(options: Record<string, unknown>): LpcmRecording;
}

const SOX_DRIVERS = ['alsa', 'pulseaudio', 'coreaudio', 'waveaudio', 'oss', 'sndio', 'ao'];
const ALSA_NAME = /^(hw|plughw|default|sysdefault|front|surround\d*|dmix|dsnoop|pulse|pipewire)(:|$)/;

/**
 * The environment sox/rec need to open `device`: `AUDIODEV`, and `AUDIODRIVER` when it can be told.
 * A device may name its driver (`pulseaudio:virtmic.monitor`, `alsa:hw:1,0`); otherwise ALSA-style
 * names go to ALSA and, on Linux, other names are PulseAudio source names (sox would try ALSA first).
 */
export function soxDeviceEnv(
  device: string,
  platform: NodeJS.Platform = process.platform,
  env: NodeJS.ProcessEnv = process.env,
): Record<string, string> {
  if (!device) return {};
  const colon = device.indexOf(':');
  const prefix = colon > 0 ? device.slice(0, colon) : '';
  if (SOX_DRIVERS.includes(prefix)) return { AUDIODRIVER: prefix, AUDIODEV: device.slice(colon + 1) };
  if (env.AUDIODRIVER) return { AUDIODEV: device };
  if (platform === 'linux') return { AUDIODRIVER: ALSA_NAME.test(device) ? 'alsa' : 'pulseaudio', AUDIODEV: device };
  return { AUDIODEV: device };
}

/**
 * PulseAudio delivers a recording client's audio in fragments of up to 2 s unless the client asks for
 * a latency, and sox asks for none: the first words after Start would arrive late or, at a stop, be cut
 * off. 50 ms is what a dictation client needs. An explicit PULSE_LATENCY_MSEC of the user's wins.
 */
const PULSE_LATENCY_MSEC = '50';

/** The environment a recorder is spawned with, beyond the inherited one. */
export function recorderEnv(
  recorder: RecorderName,
  device: string,
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
): Record<string, string> {
  const extra: Record<string, string> = recorder === 'arecord' ? {} : soxDeviceEnv(device, platform, env);
  if (env.PULSE_LATENCY_MSEC === undefined) extra.PULSE_LATENCY_MSEC = PULSE_LATENCY_MSEC;
  return extra;
}

/**
 * Starts the recorder through node-record-lpcm16 with raw output and no silence detection.
 * The caller must attach `error` listeners to both `process` and `stream` before yielding to the
 * event loop (a spawn failure is reported asynchronously as an `error` event).
 *
 * Quirks of node-record-lpcm16 1.0.1 handled here:
 * - its recorders are loaded with a dynamic `require(path.resolve(__dirname, name))`: the module must
 *   stay out of any bundle (it is `external` in esbuild.mjs);
 * - `sox` passes the device only as `AUDIODEV` (with `--default-device`), and then sox tries ALSA
 *   first, so a PulseAudio source name fails; `rec` ignores the device; `arecord` uses `-D`. For sox
 *   and rec we set `AUDIODEV`/`AUDIODRIVER` (see soxDeviceEnv) in the environment of the spawn.
 */
export function spawnRecorder(options: RecorderSpawnOptions): RecorderProcess {
  const lpcm = require('node-record-lpcm16') as LpcmModule;
  const recordOptions = {
    sampleRate: options.sampleRate,
    channels: options.channels,
    recorder: options.recorder,
    // For sox the library would set AUDIODEV itself; we pass the device through the environment instead.
    device: options.recorder === 'arecord' ? options.device || null : null,
    audioType: 'raw',
    threshold: 0,
    endOnSilence: false,
  };
  const extraEnv = recorderEnv(options.recorder, options.device);
  const saved = new Map<string, string | undefined>();
  let recording: LpcmRecording;
  try {
    // spawn() copies the environment synchronously, so these values are seen by this child only.
    for (const [k, v] of Object.entries(extraEnv)) {
      saved.set(k, process.env[k]);
      process.env[k] = v;
    }
    recording = lpcm.record(recordOptions);
  } finally {
    for (const [k, v] of saved) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
  return { process: recording.process, stream: recording.stream() };
}

export interface ProgramResult {
  /** Exit code (null when killed or never started). */
  code: number | null;
  stdout: string;
  stderr: string;
  /** The program could not be started (not installed: ENOENT). */
  error?: NodeJS.ErrnoException;
}

/** Runs a short program (device listings, `sox --info`) to completion; never rejects. */
export function runProgram(
  cmd: string,
  args: readonly string[],
  options: { timeoutMs?: number; env?: NodeJS.ProcessEnv } = {},
): Promise<ProgramResult> {
  return new Promise((resolve) => {
    execFile(
      cmd,
      args,
      { timeout: options.timeoutMs ?? 5000, env: options.env ?? process.env, maxBuffer: 4 * 1024 * 1024, encoding: 'utf8' },
      (err, stdout, stderr) => {
        const e = err as (NodeJS.ErrnoException & { code?: unknown }) | null;
        const code = e ? (typeof e.code === 'number' ? e.code : null) : 0;
        resolve({ code, stdout, stderr, error: e && typeof e.code === 'string' ? e : undefined });
      },
    );
  });
}

/** Starts a long-running program whose stdout is read as a stream (the audio file decoder). */
export function spawnProgram(cmd: string, args: readonly string[], env: NodeJS.ProcessEnv = process.env): ChildProcess {
  return spawn(cmd, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
}
