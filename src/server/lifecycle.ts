/**
 * How the service's process ends, once it serves:
 *
 * - SIGTERM, SIGINT or SIGHUP (a supervisor's stop, Ctrl+C, a closed terminal): the drain (every live session
 *   stopped, its text final and persisted, resumable), then exit 0; exit 1 when the drain itself fails.
 * - An uncaught exception: Node documents the process state as undefined after one, so the service does not
 *   carry on. It logs it, drains (new connections are refused at once) for at most {@link FATAL_DRAIN_MS},
 *   and exits 1 whether or not the drain finished: a supervisor starts it again, and the sessions resume there
 *   from their last persisted final.
 * - An unhandled rejection: logged; the service goes on (nothing was left half done by a throw).
 */
import type { ServerLogger } from './log';

export const STOP_SIGNALS = ['SIGTERM', 'SIGINT', 'SIGHUP'] as const;
type StopSignal = (typeof STOP_SIGNALS)[number];

/** The longest the drain may take after an uncaught exception before the process exits anyway. */
const FATAL_DRAIN_MS = 10_000;

interface LifecycleOptions {
  log: ServerLogger;
  /** The drain: the service's shutdown, then the engine's close. Called once. */
  stop: () => Promise<void>;
  /** Ends the process (process.exit in the service). Called once. */
  exit: (code: number) => void;
  /** {@link FATAL_DRAIN_MS} unless given (tests). */
  fatalDrainMs?: number;
}

/** What a process emits that ends the service: the signals, uncaught exceptions and unhandled rejections. */
interface ProcessEvents {
  on(event: StopSignal, listener: () => void): unknown;
  on(event: 'uncaughtException', listener: (e: unknown) => void): unknown;
  on(event: 'unhandledRejection', listener: (reason: unknown) => void): unknown;
}

export class Lifecycle {
  private draining = false;
  private ended = false;
  private code = 0;
  private deadline: NodeJS.Timeout | undefined;

  constructor(private readonly o: LifecycleOptions) {}

  /** Listens to the process's signals and errors. */
  install(proc: ProcessEvents): void {
    for (const s of STOP_SIGNALS) proc.on(s, () => this.signal(s));
    proc.on('uncaughtException', (e) => this.fatal(e));
    proc.on('unhandledRejection', (e) => this.o.log.error('unhandled rejection', { error: e }));
  }

  /** A stop signal: drains, then exits 0. A signal during the drain changes nothing. */
  signal(sig: StopSignal): void {
    if (this.draining) return;
    this.o.log.info('signal received', { signal: sig });
    this.drain();
  }

  /** An uncaught exception: drains within the deadline (even when a signal's drain is already under way), then exits 1. */
  fatal(error: unknown): void {
    const ms = this.o.fatalDrainMs ?? FATAL_DRAIN_MS;
    this.code = 1;
    if (this.ended) return;
    this.o.log.error('uncaught exception: the process state is undefined; draining, then exiting with status 1', {
      error,
      drain_deadline_ms: ms,
    });
    this.deadline ??= setTimeout(() => {
      this.o.log.error('the drain did not finish in time after an uncaught exception: exiting with status 1', { drain_deadline_ms: ms });
      this.end();
    }, ms);
    this.drain();
  }

  private drain(): void {
    if (this.draining) return;
    this.draining = true;
    let stopping: Promise<void>;
    try {
      stopping = this.o.stop();
    } catch (e) {
      stopping = Promise.reject(e);
    }
    stopping.then(
      () => this.end(),
      (e: unknown) => {
        this.o.log.error('shutdown failed', { error: e });
        this.code = 1;
        this.end();
      },
    );
  }

  private end(): void {
    if (this.ended) return;
    this.ended = true;
    clearTimeout(this.deadline);
    this.o.exit(this.code);
  }
}
