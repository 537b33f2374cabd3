/**
 * A PulseAudio virtual microphone for tests: a null sink `virtmic` whose monitor is the default
 * source, so whatever is played to `virtmic` (paplay --device=virtmic) is what a recorder captures.
 *
 * Each test process gets its OWN daemon on its own socket (PULSE_SERVER is set for this process and
 * the children it starts: sox, paplay, pactl), so parallel test runs never share or kill each other's
 * daemon. `startPulse()` is idempotent (reference-counted); `stopPulse()` kills only the daemon it
 * started, by its pid, and restores PULSE_SERVER.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export const VIRTUAL_SINK = 'virtmic';
export const VIRTUAL_SOURCE = `${VIRTUAL_SINK}.monitor`;

let daemon: ChildProcess | undefined;
let runtimeDir: string | undefined;
let savedServer: string | undefined;
let users = 0;

async function ok(cmd: string, args: string[]): Promise<boolean> {
  try {
    await run(cmd, args, { timeout: 10_000 });
    return true;
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

/** Starts (once per process) a private PulseAudio with the `virtmic` sink as the default source's owner. */
export async function startPulse(): Promise<void> {
  users += 1;
  if (users > 1) return;
  runtimeDir = mkdtempSync(path.join(os.tmpdir(), 'dictee-test-pulse-'));
  const socket = path.join(runtimeDir, 'native');
  const child = spawn(
    'pulseaudio',
    [
      '--daemonize=no',
      '--exit-idle-time=-1',
      '--use-pid-file=no',
      '--disallow-exit',
      '-n',
      `--load=module-native-protocol-unix socket=${socket} auth-anonymous=1`,
      `--load=module-null-sink sink_name=${VIRTUAL_SINK}`,
    ],
    { stdio: 'ignore', env: { ...process.env, PULSE_RUNTIME_PATH: runtimeDir, PULSE_STATE_PATH: runtimeDir } },
  );
  daemon = child;
  savedServer = process.env.PULSE_SERVER;
  process.env.PULSE_SERVER = `unix:${socket}`;
  const exited = new Promise<boolean>((r) => child.once('exit', () => r(false)));
  const ready = await Promise.race([waitFor(() => ok('pactl', ['info']), 10_000), exited]);
  if (!ready) {
    await stopPulse();
    throw new Error('PulseAudio did not start (pactl info fails on its socket)');
  }
  await run('pactl', ['set-default-source', VIRTUAL_SOURCE]);
}

/** Undoes what `startPulse()` did, once the last user is done. */
export async function stopPulse(): Promise<void> {
  if (users === 0) return;
  users -= 1;
  if (users > 0) return;
  const child = daemon;
  daemon = undefined;
  if (child && child.exitCode === null && child.signalCode === null) {
    const gone = new Promise<void>((r) => child.once('exit', () => r()));
    child.kill('SIGTERM');
    const t = setTimeout(() => child.kill('SIGKILL'), 3000);
    await gone;
    clearTimeout(t);
  }
  if (savedServer === undefined) delete process.env.PULSE_SERVER;
  else process.env.PULSE_SERVER = savedServer;
  if (runtimeDir) rmSync(runtimeDir, { recursive: true, force: true });
  runtimeDir = undefined;
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
