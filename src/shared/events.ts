/**
 * A tiny typed event emitter (no `vscode`, no Node `EventEmitter` semantics such as a throwing
 * unhandled `error` event). A listener that throws is reported to `onListenerError` and never breaks
 * the emitter or the other listeners.
 */

export interface Disposable {
  dispose(): void;
}

type Listener<T> = (value: T) => void;

export class TypedEmitter<Events extends object> {
  private readonly listeners = new Map<keyof Events, Set<Listener<never>>>();

  constructor(private readonly onListenerError: (event: string, error: unknown) => void = () => {}) {}

  /** Adds a listener; dispose the result to remove it. */
  on<K extends keyof Events>(event: K, listener: Listener<Events[K]>): Disposable {
    let set = this.listeners.get(event);
    if (!set) {
      set = new Set();
      this.listeners.set(event, set);
    }
    set.add(listener as Listener<never>);
    return { dispose: () => void this.listeners.get(event)?.delete(listener as Listener<never>) };
  }

  /** Adds a listener called at most once. */
  once<K extends keyof Events>(event: K, listener: Listener<Events[K]>): Disposable {
    const d = this.on(event, (v) => {
      d.dispose();
      listener(v);
    });
    return d;
  }

  emit<K extends keyof Events>(event: K, value: Events[K]): void {
    const set = this.listeners.get(event);
    if (!set) return;
    for (const l of [...set]) {
      try {
        (l as Listener<Events[K]>)(value);
      } catch (e) {
        this.onListenerError(String(event), e);
      }
    }
  }

  listenerCount<K extends keyof Events>(event: K): number {
    return this.listeners.get(event)?.size ?? 0;
  }

  removeAllListeners(): void {
    this.listeners.clear();
  }
}
