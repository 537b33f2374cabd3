/** Speech for the tests: espeak-ng says a text into a WAV file (16 kHz mono after sox). */
import { spawnSync } from 'node:child_process';
import path from 'node:path';

/** Writes `text` spoken by espeak-ng to `<dir>/<name>.wav`; returns the path and its duration in seconds. */
export function speak(dir: string, name: string, text: string, opts: { voice?: string; wpm?: number } = {}): { file: string; seconds: number } {
  const raw = path.join(dir, `${name}.espeak.wav`);
  const file = path.join(dir, `${name}.wav`);
  const e = spawnSync('espeak-ng', ['-v', opts.voice ?? 'en', '-s', String(opts.wpm ?? 150), '-w', raw, text], { encoding: 'utf8' });
  if (e.status !== 0) throw new Error(`espeak-ng failed: ${e.stderr || e.error?.message}`);
  const s = spawnSync('sox', [raw, '-r', '16000', '-c', '1', '-b', '16', file], { encoding: 'utf8' });
  if (s.status !== 0) throw new Error(`sox failed: ${s.stderr || s.error?.message}`);
  const d = spawnSync('soxi', ['-D', file], { encoding: 'utf8' });
  return { file, seconds: Number(d.stdout.trim()) };
}

/** A WAV file of `seconds` of silence. */
export function silence(dir: string, name: string, seconds: number): string {
  const file = path.join(dir, `${name}.wav`);
  const s = spawnSync('sox', ['-n', '-r', '16000', '-c', '1', '-b', '16', file, 'trim', '0', String(seconds)], { encoding: 'utf8' });
  if (s.status !== 0) throw new Error(`sox failed: ${s.stderr || s.error?.message}`);
  return file;
}
