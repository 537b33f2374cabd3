/**
 * The download's progress on stderr: bytes, rate and time left. On a terminal one line rewritten
 * with `\r`; elsewhere (a log, CI) a line at every tenth of the total.
 */

export interface ProgressSink {
  write(s: string): unknown;
  isTTY?: boolean;
}

const MB = 1e6;

function clock(s: number): string {
  if (!Number.isFinite(s)) return '?';
  const t = Math.round(s);
  const h = Math.floor(t / 3600);
  const m = Math.floor((t % 3600) / 60);
  const sec = String(t % 60).padStart(2, '0');
  return h ? `${h}:${String(m).padStart(2, '0')}:${sec}` : `${m}:${sec}`;
}

export class Progress {
  private got = 0;
  private readonly started: number;
  private lastDraw = -Infinity;
  private lastTenth = -1;
  private lastPrinted = -1;
  private label = '';
  private drawn = false;

  /** `total`: bytes expected in all; `already`: bytes on disk before this run (a resumed download). */
  constructor(
    private total: number,
    private readonly out: ProgressSink,
    private readonly now: () => number = Date.now,
    private readonly already = 0,
  ) {
    this.started = now();
    this.got = already;
  }

  /** The total learnt from the answer (a release archive whose size the catalogue does not know). */
  setTotal(total: number): void {
    this.total = total;
  }

  file(label: string): void {
    this.label = label;
  }

  /** `n` more bytes received. */
  add(n: number): void {
    this.got += n;
    this.draw(false);
  }

  /** `n` bytes counted earlier are to be received again (a restarted file). */
  rewind(n: number): void {
    this.got = Math.max(0, this.got - n);
  }

  line(): string {
    const secs = Math.max((this.now() - this.started) / 1000, 1e-3);
    const rate = (this.got - this.already) / secs;
    const left = rate > 0 ? (this.total - this.got) / rate : Infinity;
    const pct = this.total ? Math.min(100, Math.floor((this.got / this.total) * 100)) : 0;
    return `${this.label}  ${(this.got / MB).toFixed(1)}/${(this.total / MB).toFixed(1)} MB (${pct}%)  ${(rate / MB).toFixed(1)} MB/s  ${clock(left)} left`;
  }

  private draw(final: boolean): void {
    if (this.out.isTTY) {
      const t = this.now();
      if (!final && t - this.lastDraw < 100) return;
      this.lastDraw = t;
      this.out.write(`\r${this.line()}\x1b[K`);
      this.drawn = true;
      return;
    }
    const tenth = this.total ? Math.floor((this.got / this.total) * 10) : 0;
    if (tenth > this.lastTenth || (final && this.got !== this.lastPrinted)) {
      this.lastTenth = tenth;
      this.lastPrinted = this.got;
      this.out.write(`${this.line()}\n`);
    }
  }

  done(): void {
    this.draw(true);
    if (this.out.isTTY && this.drawn) this.out.write('\n');
  }
}
