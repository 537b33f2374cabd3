/**
 * The example client's audio: a WAV file already in the service's format is read as it is; anything
 * else (another WAV format, MP3, FLAC, OGG… whatever the installed SoX reads) is decoded by sox, as the
 * extension's "Transcribe Audio File" does.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { installHint } from '../audio/capture';
import { AudioFileError, decodeAudioFile } from '../audio/fileSource';
import { which } from '../audio/spawn';
import { DEFAULT_SAMPLE_RATE } from '../protocol/config';
import { errorMessage } from '../shared/errors';
import { checkServiceFormat, parseWav, WavFormatError, type WavInfo } from './wav';

interface ClientAudio {
  /** Mono 16-bit little-endian PCM at the service's rate. */
  pcm: Buffer;
  /** Said on stderr when the file was converted: what it was and that sox converted it. */
  note?: string;
}

/** The file cannot be used; the message says why and what to do (without the file's name: the caller says it). */
export class AudioInputError extends Error {
  override readonly name = 'AudioInputError';
}

function isRiffWave(buf: Buffer): boolean {
  return buf.length >= 12 && buf.toString('ascii', 0, 4) === 'RIFF' && buf.toString('ascii', 8, 12) === 'WAVE';
}

function describeWav(info: WavInfo): string {
  const channels = info.channels === 1 ? 'mono' : info.channels === 2 ? 'stereo' : `${info.channels}-channel`;
  return `WAV file of ${info.bitsPerSample}-bit ${channels} audio at ${info.sampleRate} Hz`;
}

/** Reads `file` as the service's PCM; throws AudioInputError naming the actual cause when it cannot. */
export async function readClientAudio(
  file: string,
  options: { sampleRate?: number; env?: NodeJS.ProcessEnv; platform?: NodeJS.Platform } = {},
): Promise<ClientAudio> {
  const rate = options.sampleRate ?? DEFAULT_SAMPLE_RATE;
  let buf: Buffer;
  try {
    buf = readFileSync(file);
  } catch (e) {
    throw new AudioInputError(`cannot read it: ${errorMessage(e)}`);
  }
  let info: WavInfo | undefined;
  let formatProblem: string | undefined;
  if (isRiffWave(buf)) {
    try {
      info = parseWav(buf);
      checkServiceFormat(info, file, rate);
      return { pcm: info.data };
    } catch (e) {
      if (!(e instanceof WavFormatError)) throw e;
      formatProblem = e.message;
    }
  }
  const platform = options.platform ?? process.platform;
  if (!which('sox', options.env ?? process.env, platform)) {
    const why = `sox, which would convert it by itself, is not on PATH: ${installHint('sox', platform)}.`;
    if (formatProblem) throw new AudioInputError(`${formatProblem}\n${why}`);
    throw new AudioInputError(`not a WAV file the service takes as it is; ${why}`);
  }
  let pcm: Buffer;
  try {
    pcm = await decodeAudioFile(file, rate);
  } catch (e) {
    if (e instanceof AudioFileError) {
      // SoX without the library of this format (Debian packages them apart: libsox-fmt-mp3, libsox-fmt-all).
      const formats = /no handler for|not supported|unknown/i.test(e.message)
        ? ' (install its format libraries: `sudo apt-get install libsox-fmt-all` on Debian/Ubuntu)'
        : '';
      throw new AudioInputError(`sox cannot read it as audio: ${e.message}${formats}`);
    }
    throw e;
  }
  if (pcm.length === 0) throw new AudioInputError('it holds no audio (sox decoded nothing from it)');
  const was = info ? describeWav(info) : `${path.extname(file).slice(1).toUpperCase() || 'audio'} file`;
  return { pcm, note: `${was}, converted by sox to 16-bit mono at ${rate} Hz` };
}
