import type { DefaultValues, RunStatus } from "@agent-server/core";

export interface RunEnd {
  status: RunStatus;
  values: DefaultValues | null;
  error?: { error: string; message: string };
  /** The run was rolled back: it no longer exists. */
  erased?: boolean;
}

/**
 * Callers waiting for a run to end in this process (`/runs/wait`, `join`). Entries exist only while
 * someone waits; settlement resolves and removes them.
 */
export class RunWaiters {
  private readonly waiting = new Map<string, Set<(end: RunEnd) => void>>();

  wait(runId: string): { promise: Promise<RunEnd>; cancel: () => void } {
    let resolver!: (end: RunEnd) => void;
    const promise = new Promise<RunEnd>((resolve) => (resolver = resolve));
    let set = this.waiting.get(runId);
    if (!set) this.waiting.set(runId, (set = new Set()));
    set.add(resolver);
    const cancel = () => {
      set!.delete(resolver);
      if (set!.size === 0 && this.waiting.get(runId) === set) this.waiting.delete(runId);
    };
    return { promise: promise.finally(cancel), cancel };
  }

  resolve(runId: string, end: RunEnd): void {
    const set = this.waiting.get(runId);
    this.waiting.delete(runId);
    for (const resolve of set ?? []) resolve(end);
  }
}
