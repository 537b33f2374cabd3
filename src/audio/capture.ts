/**
 * Microphone capture: a recorder process (sox, rec or arecord, through node-record-lpcm16) writing
 * raw 16-bit little-endian PCM on its stdout.
 */
import type { Logger } from '../shared/logger';
import { silentLogger } from '../shared/logger';
import { TypedEmitter, type Disposable } from '../shared/events';
import { DEFAULT_SAMPLE_RATE } from '../protocol/config';
import { DEFAULT_RECORDER, RECORDERS, isProcessAlive, spawnRecorder, which, type RecorderName, type RecorderProcess } from './spawn';
import { errorMessage } from '../shared/errors';

/**
 * Only the commands that install a recorder on a platform (no sentence around them, so that the editor
 * can put them in a sentence of the user's language); undefined where the recorder does not exist.
 */
export function installCommands(recorder: RecorderName, platform: NodeJS.Platform = process.platform): string | undefined {
  if (recorder === 'arecord')
    return platform === 'linux' ? '`sudo apt-get install alsa-utils` (Debian, Ubuntu), `sudo dnf install alsa-utils` (Fedora)' : undefined;
  switch (platform) {
    case 'darwin':
      return '`brew install sox`';
    case 'win32':
      return '`choco install sox.portable`';
    default:
      return '`sudo apt-get install sox` (Debian, Ubuntu), `sudo dnf install sox` (Fedora)';
  }
}

/** The install command for a recorder on a platform. */
export function installHint(recorder: RecorderName, platform: NodeJS.Platform = process.platform): string {
  if (recorder === 'arecord') {
    if (platform === 'linux') {
      return 'install alsa-utils: `sudo apt-get install alsa-utils` (Debian/Ubuntu) or `sudo dnf install alsa-utils` (Fedora)';
    }
    return 'arecord exists only on Linux; choose the "sox" recorder instead';
  }
  switch (platform) {
    case 'darwin':
      return 'install SoX: `brew install sox`';
    case 'win32':
      return 'install SoX: `choco install sox.portable`, or the installer from the SoX project, and add it to PATH';
    default:
      return 'install SoX: `sudo apt-get install sox` (Debian/Ubuntu) or `sudo dnf install sox` (Fedora)';
  }
}

/** The recorder binary is not on PATH (or could not be started). */
export class RecorderMissingError extends Error {
  override readonly name = 'RecorderMissingError';
  constructor(
    readonly recorder: RecorderName,
    platform: NodeJS.Platform = process.platform,
  ) {
    super(`The audio recorder "${recorder}" was not found on PATH; ${installHint(recorder, platform)}.`);
  }
}

/** The recorder process failed (exited on its own with an error, or could not open the device). */
class RecorderError extends Error {
  override readonly name = 'RecorderError';
  constructor(
    message: string,
    readonly recorder: RecorderName,
    readonly exitCode: number | null,
  ) {
    super(message);
  }
}

interface CaptureOptions {
  recorder?: RecorderName;
  /** Empty string: the system default input. */
  device?: string;
  sampleRate?: number;
  logger?: Logger;
  /** Grace period after SIGTERM before SIGKILL on stop, for a recorder that delivered audio (ms). */
  killTimeoutMs?: number;
  /**
   * The same for a recorder that never delivered audio (ms): it has nothing of ours to flush but, at
   * most, its first block; one that is stuck starting and does not answer SIGTERM must not hold the
   * stop for the full grace period.
   */
  silentKillTimeoutMs?: number;
}

/** A working recorder answers SIGTERM within tens of milliseconds; one that has delivered nothing gets this long. */
const SILENT_KILL_TIMEOUT_MS = 250;

interface CaptureEvents {
  data: Buffer;
  error: Error;
}

/**
 * `start()` launches the recorder (throws `RecorderMissingError` synchronously when the binary is not
 * on PATH); `data` events carry raw mono s16le PCM; `stop()` always kills the process and resolves once
 * it has exited.
 */
export class MicrophoneCapture {
  private readonly emitter: TypedEmitter<CaptureEvents>;
  private rec: RecorderProcess | undefined;
  private exited: Promise<void> = Promise.resolve();
  private stopping = false;
  private stderrTail = '';
  private spawnFailed = false;
  /** Bytes the current recorder has delivered. */
  private delivered = 0;
  readonly recorder: RecorderName;
  readonly device: string;
  readonly sampleRate: number;
  private readonly logger: Logger;
  private readonly killTimeoutMs: number;
  private readonly silentKillTimeoutMs: number;

  constructor(options: CaptureOptions = {}) {
    this.recorder = options.recorder ?? DEFAULT_RECORDER;
    if (!RECORDERS.includes(this.recorder))
      throw new RangeError(`unknown recorder "${String(this.recorder)}"; expected one of ${RECORDERS.join(', ')}`);
    this.device = options.device ?? '';
    this.sampleRate = options.sampleRate ?? DEFAULT_SAMPLE_RATE;
    this.logger = options.logger ?? silentLogger;
    this.killTimeoutMs = options.killTimeoutMs ?? 2000;
    this.silentKillTimeoutMs = Math.min(options.silentKillTimeoutMs ?? SILENT_KILL_TIMEOUT_MS, this.killTimeoutMs);
    this.emitter = new TypedEmitter((event, e) => this.logger.error(`capture: ${event} listener failed: ${errorMessage(e)}`));
  }

  on<K extends keyof CaptureEvents>(event: K, listener: (v: CaptureEvents[K]) => void): Disposable {
    return this.emitter.on(event, listener);
  }

  /** The recorder's pid while it runs. */
  get pid(): number | undefined {
    return this.rec?.process.pid;
  }

  get running(): boolean {
    return this.rec !== undefined;
  }

  start(): void {
    if (this.rec) throw new Error('capture already started');
    if (!which(this.recorder)) throw new RecorderMissingError(this.recorder);
    this.stopping = false;
    this.spawnFailed = false;
    this.stderrTail = '';
    this.delivered = 0;
    const rec = spawnRecorder({ recorder: this.recorder, sampleRate: this.sampleRate, channels: 1, device: this.device });
    this.rec = rec;
    const cp = rec.process;
    this.logger.info(
      `capture: started ${this.recorder} (pid ${cp.pid ?? '?'}) device ${this.device || '(system default)'} at ${this.sampleRate} Hz`,
    );
    this.exited = new Promise<void>((resolve) => {
      cp.once('close', (code: number | null, signal: NodeJS.Signals | null) => {
        if (this.rec === rec) this.rec = undefined;
        this.logger.info(`capture: ${this.recorder} exited (code ${code}, signal ${signal})`);
        if (this.spawnFailed) {
          // already reported by the 'error' listener
        } else if (!this.stopping && code !== 0 && code !== null) {
          const tail = this.stderrTail.trim().split('\n').slice(-2).join(' ').trim();
          this.emitter.emit(
            'error',
            new RecorderError(`the recorder ${this.recorder} exited with code ${code}${tail ? `: ${tail}` : ''}`, this.recorder, code),
          );
        } else if (!this.stopping && signal) {
          this.emitter.emit('error', new RecorderError(`the recorder ${this.recorder} was killed by ${signal}`, this.recorder, null));
        }
        resolve();
      });
    });
    // Spawn failures (ENOENT, EACCES) arrive as an 'error' event on the process.
    cp.on('error', (err: NodeJS.ErrnoException) => {
      this.spawnFailed = true;
      if (err.code === 'ENOENT') this.emitter.emit('error', new RecorderMissingError(this.recorder));
      else
        this.emitter.emit(
          'error',
          new RecorderError(`the recorder ${this.recorder} could not be started: ${err.message}`, this.recorder, null),
        );
      if (this.rec === rec && cp.pid === undefined) this.rec = undefined;
    });
    // node-record-lpcm16 re-emits a non-zero exit as an 'error' (a string) on the stream: handled on 'close'.
    rec.stream.on('error', (e: unknown) => this.logger.debug(`capture: recorder stream: ${errorMessage(e).split('\n')[0]}`));
    // Everything the recorder wrote is delivered, including what it flushes between SIGTERM and its
    // exit: the last moment of speech before a pause or stop is never dropped.
    rec.stream.on('data', (chunk: Buffer | string) => {
      const pcm = typeof chunk === 'string' ? Buffer.from(chunk, 'binary') : chunk;
      if (this.rec === rec) this.delivered += pcm.length;
      this.emitter.emit('data', pcm);
    });
    cp.stderr?.on('data', (d: Buffer) => {
      this.stderrTail = (this.stderrTail + d.toString('utf8')).slice(-2000);
    });
  }

  /**
   * Kills the recorder and waits for it to exit: SIGTERM, so that it writes what it still holds (all of
   * it is delivered), then SIGKILL after the grace period — `killTimeoutMs` for a recorder that delivered
   * audio, `silentKillTimeoutMs` for one that never did (it failed to start, or is stuck opening its device).
   */
  async stop(): Promise<void> {
    const rec = this.rec;
    if (!rec) return this.exited;
    this.stopping = true;
    const cp = rec.process;
    const pid = cp.pid;
    if (pid !== undefined && cp.exitCode === null && cp.signalCode === null) {
      const silent = this.delivered === 0;
      cp.kill('SIGTERM');
      const timer = setTimeout(
        () => {
          if (pid !== undefined && isProcessAlive(pid) && cp.exitCode === null && cp.signalCode === null) {
            this.logger.warn(
              `capture: ${this.recorder} (pid ${pid}) ignored SIGTERM${silent ? ' and never delivered audio' : ''}; killing it`,
            );
            cp.kill('SIGKILL');
          }
        },
        silent ? this.silentKillTimeoutMs : this.killTimeoutMs,
      );
      try {
        await this.exited;
      } finally {
        clearTimeout(timer);
      }
    } else {
      await this.exited;
    }
    if (this.rec === rec) this.rec = undefined;
  }

  /** Stops and forgets every listener. */
  async dispose(): Promise<void> {
    await this.stop();
    this.emitter.removeAllListeners();
  }
}

/** What a run records from while dictating live: the recorder, or the capture page in the browser. */
export interface LiveAudioSource {
  /** Begins delivering audio (throws `RecorderMissingError` when the recorder is not installed). */
  start(): void;
  /** Stops, once every byte recorded before it is delivered. */
  stop(): Promise<void>;
  on<K extends keyof CaptureEvents>(event: K, listener: (v: CaptureEvents[K]) => void): Disposable;
}

/**
 * Resolves once `source` delivers its first audio (true), or fails, or `timeoutMs` passes (false). A
 * recorder takes a while to open its device after `start()` (over a second for SoX on a busy machine):
 * what is said before its first audio is never recorded.
 */
export function firstAudio(source: LiveAudioSource, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const done = (ok: boolean) => {
      clearTimeout(timer);
      data.dispose();
      error.dispose();
      resolve(ok);
    };
    const timer = setTimeout(() => done(false), timeoutMs);
    const data = source.on('data', () => done(true));
    const error = source.on('error', () => done(false));
  });
}
