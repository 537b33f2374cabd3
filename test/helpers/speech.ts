/**
 * Speech for tests: espeak-ng renders text to WAV, sox converts it to raw s16le mono PCM.
 * Results are cached in a temp dir by a hash of (text, voice, rate).
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const CACHE_DIR = path.join(os.tmpdir(), 'dictee-speech-cache');

export interface SpeechOptions {
  sampleRate?: number;
  /** espeak-ng voice, e.g. `en`, `fr`, `en-us`. Default `en`. */
  voice?: string;
}

/** Raw PCM (s16le, mono, `sampleRate` Hz, default 16000) of `text` spoken by espeak-ng. */
export async function speechPcm(text: string, opts: SpeechOptions = {}): Promise<Buffer> {
  const rate = opts.sampleRate ?? 16000;
  const voice = opts.voice ?? 'en';
  mkdirSync(CACHE_DIR, { recursive: true });
  const hash = createHash('sha256')
    .update(JSON.stringify([text, voice, rate]))
    .digest('hex')
    .slice(0, 24);
  const out = path.join(CACHE_DIR, `${hash}.raw`);
  if (existsSync(out)) return readFileSync(out);
  const tag = `${hash}.${process.pid}.${Math.random().toString(36).slice(2)}`;
  const wav = path.join(CACHE_DIR, `${tag}.wav`);
  const tmpRaw = path.join(CACHE_DIR, `${tag}.raw`);
  await run('espeak-ng', ['-v', voice, '-w', wav, '--', text]);
  await run('sox', [wav, '-t', 'raw', '-e', 'signed-integer', '-b', '16', '-c', '1', '-r', String(rate), '-L', tmpRaw]);
  renameSync(tmpRaw, out); // atomic: parallel test processes never read a half-written file
  return readFileSync(out);
}

/** `ms` milliseconds of digital silence (s16le mono). */
export function silence(ms: number, rate = 16000): Buffer {
  const samples = Math.round((ms * rate) / 1000);
  return Buffer.alloc(samples * 2);
}

/**
 * A silent room as SoX records it (s16le mono): its triangular dither, -1, 0 or +1 (a quarter, a half, a
 * quarter of the samples), from a fixed seed so that every run hears the same noise.
 */
export function roomNoise(ms: number, rate = 16000): Buffer {
  const buf = Buffer.alloc(Math.round((ms * rate) / 1000) * 2);
  let x = 987654321;
  const uniform = (): number => {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    return x / 2 ** 32;
  };
  for (let i = 0; i < buf.length; i += 2) buf.writeInt16LE(Math.round(uniform() - uniform()), i);
  return buf;
}

/** A sine tone (s16le mono), handy as "voiced" audio for VAD tests. */
export function tone(ms: number, rate = 16000, freq = 220, amplitude = 8000): Buffer {
  const samples = Math.round((ms * rate) / 1000);
  const buf = Buffer.alloc(samples * 2);
  for (let i = 0; i < samples; i++) buf.writeInt16LE(Math.round(amplitude * Math.sin((2 * Math.PI * freq * i) / rate)), i * 2);
  return buf;
}

/** Splits PCM into frames of `bytes` (default 3200 = 100 ms at 16 kHz); the last frame may be shorter (kept even). */
export function framesOf(pcm: Buffer, bytes = 3200): Buffer[] {
  const frames: Buffer[] = [];
  for (let off = 0; off < pcm.length; off += bytes) frames.push(pcm.subarray(off, Math.min(off + bytes, pcm.length)));
  return frames;
}

/** A script file for the simulated engine (the words it gives, in order), in a folder of its own. */
export function scriptFile(text: string): string {
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'dictee-script-')), 'script.txt');
  writeFileSync(file, text);
  return file;
}

/** `n` bursts of tone (≈ 2 words each of the simulated engine at 700 ms), each followed by a pause that ends its sentence. */
export function bursts(n: number, toneMs = 700, gapMs = 1300): Buffer {
  const parts: Buffer[] = [];
  for (let i = 0; i < n; i++) parts.push(tone(toneMs), silence(gapMs));
  return Buffer.concat(parts);
}
