/**
 * Minimal WAV (RIFF) reader for the example client: finds the `fmt ` and `data` chunks and checks the
 * format is what the service takes (PCM 16-bit little-endian, mono, 16 kHz by default).
 */
import { DEFAULT_SAMPLE_RATE } from '../protocol/config';

export interface WavInfo {
  audioFormat: number;
  channels: number;
  sampleRate: number;
  bitsPerSample: number;
  /** The PCM samples (a view into the input). */
  data: Buffer;
}

export class WavFormatError extends Error {
  override readonly name = 'WavFormatError';
}

const WAVE_FORMAT_PCM = 1;
const WAVE_FORMAT_EXTENSIBLE = 0xfffe;

/** Parses a WAV file's header; throws WavFormatError with a specific message when it is not one. */
export function parseWav(buf: Buffer): WavInfo {
  if (buf.length < 12 || buf.toString('ascii', 0, 4) !== 'RIFF' || buf.toString('ascii', 8, 12) !== 'WAVE') {
    throw new WavFormatError('not a WAV file (no RIFF/WAVE header)');
  }
  let fmt: Omit<WavInfo, 'data'> | undefined;
  let off = 12;
  while (off + 8 <= buf.length) {
    const id = buf.toString('ascii', off, off + 4);
    let size = buf.readUInt32LE(off + 4);
    const body = off + 8;
    if (id === 'fmt ') {
      if (size < 16 || body + 16 > buf.length) throw new WavFormatError('truncated fmt chunk');
      let audioFormat = buf.readUInt16LE(body);
      if (audioFormat === WAVE_FORMAT_EXTENSIBLE && size >= 40 && body + 26 <= buf.length) {
        audioFormat = buf.readUInt16LE(body + 24); // first two bytes of the SubFormat GUID
      }
      fmt = {
        audioFormat,
        channels: buf.readUInt16LE(body + 2),
        sampleRate: buf.readUInt32LE(body + 4),
        bitsPerSample: buf.readUInt16LE(body + 14),
      };
    } else if (id === 'data') {
      if (!fmt) throw new WavFormatError('data chunk before the fmt chunk');
      // A streamed WAV may carry 0 or 0xFFFFFFFF as the size: take the rest of the file.
      if (size === 0 || size === 0xffffffff || body + size > buf.length) size = buf.length - body;
      return { ...fmt, data: buf.subarray(body, body + size) };
    }
    off = body + size + (size % 2); // chunks are padded to even sizes
  }
  throw new WavFormatError(fmt ? 'no data chunk' : 'no fmt chunk');
}

/**
 * Checks the format the service needs; throws WavFormatError naming what is wrong and the sox
 * command that converts the file (the message does not start with the file's name: the caller says it).
 */
export function checkServiceFormat(info: WavInfo, file: string, sampleRate = DEFAULT_SAMPLE_RATE): void {
  const problems: string[] = [];
  if (info.audioFormat !== WAVE_FORMAT_PCM) problems.push(`encoding is not PCM (format tag ${info.audioFormat})`);
  if (info.bitsPerSample !== 16) problems.push(`${info.bitsPerSample}-bit samples instead of 16-bit`);
  if (info.channels !== 1) problems.push(`${info.channels} channels instead of 1`);
  if (info.sampleRate !== sampleRate) problems.push(`${info.sampleRate} Hz instead of ${sampleRate} Hz`);
  if (problems.length === 0) return;
  const out = file.replace(/\.wav$/i, '') + `-${sampleRate / 1000}k-mono.wav`;
  throw new WavFormatError(
    `${problems.join(', ')}. The service takes 16-bit PCM mono at ${sampleRate} Hz; convert with:\n` +
      `  sox ${JSON.stringify(file)} -r ${sampleRate} -c 1 -b 16 -e signed-integer ${JSON.stringify(out)}`,
  );
}
