/**
 * An audio file (WAV, MP3, FLAC, OGG… whatever the installed SoX reads) decoded by `sox` into the PCM a
 * dictation session takes: mono, 16-bit little-endian, at the session's rate. The decoder's output is
 * read only as fast as the consumer takes it (`canTake`), so a file is streamed as fast as the service
 * accepts it and no faster than it can hold.
 */
import type { ChildProcess } from 'node:child_process';
import { TypedEmitter, type Disposable } from '../shared/events';
import { errorMessage } from '../shared/errors';
import { runProgram, spawnProgram, which } from './spawn';
import { RecorderMissingError } from './capture';

/** The `sox` arguments that decode `file` to raw mono s16le PCM at `rate` on stdout. */
export function soxDecodeArgs(file: string, rate: number): string[] {
  return ['-V1', file, '-t', 'raw', '-r', String(rate), '-e', 'signed-integer', '-b', '16', '-c', '1', '-L', '-'];
}

/** The file's duration in seconds as SoX reads it (`sox --info -D`), or undefined when it cannot tell. */
export async function audioFileSeconds(file: string): Promise<number | undefined> {
  const r = await runProgram('sox', ['--info', '-D', file], { timeoutMs: 15_000 });
  const s = Number(r.stdout.trim());
  return r.code === 0 && Number.isFinite(s) && s > 0 ? s : undefined;
}

/** The file cannot be read as audio (with SoX's own explanation). */
export class AudioFileError extends Error {
  override readonly name = 'AudioFileError';
}

interface FileSourceEvents {
  data: Buffer;
  error: Error;
  /** Every byte of the file was delivered. */
  end: void;
}

export class AudioFileSource {
  private readonly emitter = new TypedEmitter<FileSourceEvents>();
  private proc: ChildProcess | undefined;
  private stderr = '';
  private stopped = false;
  private ended = false;
  private timer: NodeJS.Timeout | undefined;
  /** Bytes delivered so far. */
  delivered = 0;

  /**
   * @param canTake whether the consumer takes more audio now; polled every `pollMs` while it says no.
   */
  constructor(
    readonly file: string,
    readonly sampleRate: number,
    private readonly canTake: () => boolean,
    private readonly pollMs = 20,
  ) {}

  on<K extends keyof FileSourceEvents>(event: K, listener: (v: FileSourceEvents[K]) => void): Disposable {
    return this.emitter.on(event, listener);
  }

  /** Starts decoding; throws RecorderMissingError (sox) synchronously when sox is not on PATH. */
  start(): void {
    if (this.proc) throw new Error('already started');
    if (!which('sox')) throw new RecorderMissingError('sox');
    const p = spawnProgram('sox', soxDecodeArgs(this.file, this.sampleRate));
    this.proc = p;
    p.stderr?.on('data', (d: Buffer) => {
      this.stderr = (this.stderr + d.toString('utf8')).slice(-2000);
    });
    p.on('error', (e) => this.fail(new AudioFileError(errorMessage(e))));
    const out = p.stdout!;
    out.on('data', (chunk: Buffer) => {
      if (this.stopped) return;
      this.delivered += chunk.length;
      this.emitter.emit('data', chunk);
      if (!this.canTake()) {
        out.pause();
        this.waitThen(() => out.resume());
      }
    });
    p.on('close', (code) => {
      if (this.stopped || this.ended) return;
      if (code === 0) {
        this.ended = true;
        this.emitter.emit('end', undefined);
      } else {
        const why = this.stderr
          .trim()
          .split('\n')
          .slice(-2)
          .join(' ')
          .replace(/^sox FAIL \w+: /, '')
          .trim();
        this.fail(new AudioFileError(why || `sox exited with code ${code}`));
      }
    });
  }

  /** Stops decoding (Cancel); nothing more is delivered. */
  stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    const p = this.proc;
    if (!p || p.exitCode !== null || p.signalCode !== null) return Promise.resolve();
    return new Promise((resolve) => {
      p.once('close', () => resolve());
      p.kill('SIGTERM');
    });
  }

  private waitThen(go: () => void): void {
    this.timer = setTimeout(() => {
      if (this.stopped) return;
      if (this.canTake()) go();
      else this.waitThen(go);
    }, this.pollMs);
  }

  private fail(e: Error): void {
    if (this.stopped || this.ended) return;
    this.ended = true;
    this.emitter.emit('error', e);
  }
}

/**
 * The whole file decoded by sox (as the extension's file transcription does) to mono s16le PCM at
 * `rate`. Rejects with RecorderMissingError when sox is not on PATH, AudioFileError when sox cannot read it.
 */
export function decodeAudioFile(file: string, rate: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const source = new AudioFileSource(file, rate, () => true);
    source.on('data', (chunk) => chunks.push(chunk));
    source.on('error', reject);
    source.on('end', () => resolve(Buffer.concat(chunks)));
    try {
      source.start();
    } catch (e) {
      reject(e instanceof Error ? e : new Error(String(e)));
    }
  });
}
