/**
 * A wait for a condition on state that its owner changes (a count reaching zero…): the owner calls
 * {@link Condition.changed} where the state changes, and {@link Condition.wait} resolves then, not at the next
 * tick of a poll.
 */
export class Condition {
  private readonly waiters = new Set<() => void>();

  constructor(private readonly holds: () => boolean) {}

  /** The state may have changed: the waiters are woken if the condition holds now. */
  changed(): void {
    if (!this.waiters.size || !this.holds()) return;
    const woken = [...this.waiters];
    this.waiters.clear();
    for (const wake of woken) wake();
  }

  /** Resolves true once the condition holds (at once when it does), or with whether it holds after `maxMs`. */
  wait(maxMs: number): Promise<boolean> {
    if (this.holds()) return Promise.resolve(true);
    return new Promise((resolve) => {
      const wake = (): void => {
        clearTimeout(timer);
        resolve(true);
      };
      const timer = setTimeout(() => {
        this.waiters.delete(wake);
        resolve(this.holds());
      }, maxMs);
      this.waiters.add(wake);
    });
  }
}
