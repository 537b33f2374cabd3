/**
 * A private PulseAudio daemon with a null sink `virtmic` whose monitor is the default source: what is
 * played into `virtmic` (paplay --device=virtmic) is what `sox -d` records. A second source,
 * `dictee_test_mic` (a remap of that monitor: a source that is not a monitor, as a microphone is), hears
 * the same, for the microphone picker. It runs in the foreground of
 * its own process group with its own runtime dir and socket, so it never touches a desktop's PulseAudio
 * and is stopped with the rest of the harness. As root PulseAudio warns ("not intended to be run as root")
 * but works in this per-user mode; `--system` is not needed.
 */
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { start, type Proc } from './procs';
import { waitFor } from '../../helpers/wait';

/** The name of the virtual microphone that is not a monitor (what the picker lists under "Microphones"). */
export const TEST_MIC_SOURCE = 'dictee_test_mic';

export interface VirtualMic {
  /** Environment a PulseAudio client (sox, paplay, code-server's extension host) needs to use it. */
  env: { PULSE_SERVER: string; XDG_RUNTIME_DIR: string };
  /** Plays raw PCM (s16le mono, 16 kHz) into the virtual microphone; resolves when it has been played. */
  playPcm(pcm: Buffer): Promise<void>;
  stop(): Promise<void>;
}

export async function startVirtualMic(): Promise<VirtualMic> {
  const runtimeDir = mkdtempSync(path.join(os.tmpdir(), 'dictee-pulse-'));
  chmodSync(runtimeDir, 0o700);
  const socket = path.join(runtimeDir, 'native');
  const env = { PULSE_SERVER: `unix:${socket}`, XDG_RUNTIME_DIR: runtimeDir };
  const daemon: Proc = start(
    'pulseaudio',
    'pulseaudio',
    [
      '--daemonize=no',
      '--exit-idle-time=-1',
      '--use-pid-file=no',
      '--disallow-exit',
      '-n',
      `--load=module-native-protocol-unix socket=${socket} auth-anonymous=1`,
      '--load=module-null-sink sink_name=virtmic rate=16000 channels=1',
      '--load=module-remap-source master=virtmic.monitor source_name=dictee_test_mic channels=1',
    ],
    { env: { ...process.env, ...env, HOME: runtimeDir } },
  );
  const pactl = (...args: string[]) => spawnSync('pactl', args, { env: { ...process.env, ...env }, encoding: 'utf8', timeout: 5000 });
  await waitFor(() => pactl('info').status === 0, 15_000, `PulseAudio to answer on ${socket}: ${daemon.output().slice(-500)}`, 100);
  const r = pactl('set-default-source', 'virtmic.monitor');
  if (r.status !== 0) throw new Error(`pactl set-default-source virtmic.monitor failed: ${r.stderr}`);
  return {
    env,
    async playPcm(pcm) {
      const p = spawn('paplay', ['--device=virtmic', '--raw', '--format=s16le', '--rate=16000', '--channels=1'], {
        env: { ...process.env, ...env },
        stdio: ['pipe', 'ignore', 'pipe'],
      });
      let err = '';
      p.stderr.on('data', (d: Buffer) => (err += d.toString()));
      const done = new Promise<number | null>((resolve) => {
        p.once('error', () => resolve(-1));
        p.once('exit', (code) => resolve(code));
      });
      p.stdin.on('error', () => undefined);
      p.stdin.end(pcm);
      const code = await done;
      if (code !== 0) throw new Error(`paplay failed (${code}): ${err}`);
    },
    async stop() {
      await daemon.stop(2000);
      rmSync(runtimeDir, { recursive: true, force: true });
    },
  };
}
