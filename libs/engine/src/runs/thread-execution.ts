/**
 * `withThreadExecution`: runs of one thread execute one at a time in this process. (Across processes
 * the storage's `claimNext` never hands out a run while another run of its thread is running.)
 * Memory: one entry per thread with work queued, removed when its chain drains.
 */
export class ThreadExecution {
  private readonly tails = new Map<string, Promise<unknown>>();

  async run<T>(threadId: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(threadId) ?? Promise.resolve();
    const current = previous.then(fn, fn);
    const tail = current.catch(() => undefined);
    this.tails.set(threadId, tail);
    try {
      return await current;
    } finally {
      if (this.tails.get(threadId) === tail) this.tails.delete(threadId);
    }
  }
}
