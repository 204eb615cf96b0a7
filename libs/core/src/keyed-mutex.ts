/**
 * Mutual exclusion per key within one process: `run(key, fn)` calls start in arrival order and one at a
 * time per key; different keys do not wait for each other. Memory: one entry per key with work queued,
 * removed when its chain drains. Drivers put it in front of their cross-process thread lock, so callers of
 * one process queue here instead of each holding a connection while they wait.
 */
export class KeyedMutex {
  private readonly tails = new Map<string, Promise<unknown>>();

  async run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const current = previous.then(fn, fn);
    const tail = current.catch(() => undefined);
    this.tails.set(key, tail);
    try {
      return await current;
    } finally {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }
}
