/**
 * A PulseAudio virtual microphone for tests: a null sink `virtmic` whose monitor is the default
 * source, so whatever is played to `virtmic` (paplay --device=virtmic) is what a recorder captures.
 *
 * `startPulse()` is idempotent: it reuses a daemon that is already running (and a `virtmic` sink that
 * exists), and remembers only what it started itself; `stopPulse()` undoes exactly that (unloads the
 * sink module it loaded, kills the daemon only if it started it).
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

export const VIRTUAL_SINK = 'virtmic';
export const VIRTUAL_SOURCE = `${VIRTUAL_SINK}.monitor`;

let startedDaemon = false;
let loadedModule: string | undefined;
let users = 0;

async function ok(cmd: string, args: string[]): Promise<boolean> {
  try {
    await run(cmd, args, { timeout: 10_000 });
    return true;
  } catch {
    return false;
  }
}

async function sinkExists(): Promise<boolean> {
  try {
    const { stdout } = await run('pactl', ['list', 'short', 'sinks'], { timeout: 10_000 });
    return stdout.split('\n').some((l) => l.split('\t')[1] === VIRTUAL_SINK);
  } catch {
    return false;
  }
}

async function waitFor(check: () => Promise<boolean>, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return check();
}

/** Starts (or reuses) PulseAudio with the `virtmic` sink and makes its monitor the default source. */
export async function startPulse(): Promise<void> {
  users += 1;
  if (users > 1) return;
  const running = await ok('pulseaudio', ['--check']);
  if (!running) {
    await run('pulseaudio', [
      '--daemonize=yes',
      '--exit-idle-time=-1',
      '-n',
      '--load=module-native-protocol-unix',
      `--load=module-null-sink sink_name=${VIRTUAL_SINK}`,
    ]);
    startedDaemon = true;
    if (!(await waitFor(() => ok('pactl', ['info']), 10_000))) throw new Error('PulseAudio started but does not answer pactl info');
  }
  if (!(await sinkExists())) {
    const { stdout } = await run('pactl', ['load-module', 'module-null-sink', `sink_name=${VIRTUAL_SINK}`]);
    loadedModule = stdout.trim();
  }
  await run('pactl', ['set-default-source', VIRTUAL_SOURCE]);
}

/** Undoes what `startPulse()` did (only that). */
export async function stopPulse(): Promise<void> {
  if (users === 0) return;
  users -= 1;
  if (users > 0) return;
  if (loadedModule) {
    await ok('pactl', ['unload-module', loadedModule]);
    loadedModule = undefined;
  }
  if (startedDaemon) {
    await ok('pulseaudio', ['--kill']);
    startedDaemon = false;
    await waitFor(async () => !(await ok('pulseaudio', ['--check'])), 5000);
  }
}

/** Plays raw s16le mono PCM to the virtual microphone; resolves when playback is over. */
export async function playToVirtualMic(pcm: Buffer, sampleRate = 16000): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const child = execFile(
      'paplay',
      [`--device=${VIRTUAL_SINK}`, '--raw', '--format=s16le', `--rate=${sampleRate}`, '--channels=1'],
      { timeout: 60_000 },
      (err) => (err ? reject(err) : resolve()),
    );
    child.stdin!.end(pcm);
  });
}
