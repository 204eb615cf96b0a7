import type { DefaultValues, Run, RunResult, RunStatus, StorageFault, Thread } from "@agent-server/core";

export interface RunEnd {
  status: RunStatus;
  values: DefaultValues | null;
  error?: { error: string; message: string };
  /** The run was rolled back: it no longer exists. */
  erased?: boolean;
  /** The thread as settlement left it, when settlement updated it (a caller need not read it back). */
  thread?: Pick<Thread, "status" | "interrupts">;
  /**
   * The run row as its terminal write left it, when settlement in this process has it (never signalled
   * to other processes): a caller rendering the ended run need not read it back.
   */
  run?: Run;
  /** The result this settlement recorded (server-marked runs), likewise only in this process. */
  result?: RunResult;
}

/**
 * Callers waiting for a run to end in this process (`/runs/wait`, `join`). Entries exist only while
 * someone waits; settlement resolves and removes them.
 */
export class RunWaiters {
  private readonly waiting = new Map<string, Set<(end: RunEnd) => void>>();
  private readonly stallListeners = new Map<string, Set<(fault: StorageFault) => void>>();

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

  /** Whether anyone here still waits for the run (settlement here resolves them before its end signal arrives). */
  has(runId: string): boolean {
    return this.waiting.has(runId);
  }

  resolve(runId: string, end: RunEnd): void {
    const set = this.waiting.get(runId);
    this.waiting.delete(runId);
    for (const resolve of set ?? []) resolve(end);
  }

  /**
   * Hears that the run was handed back for a storage fault (it is kept, and resumes once the database
   * answers), until the returned function is called.
   */
  onStall(runId: string, listener: (fault: StorageFault) => void): () => void {
    let set = this.stallListeners.get(runId);
    if (!set) this.stallListeners.set(runId, (set = new Set()));
    set.add(listener);
    return () => {
      set!.delete(listener);
      if (set!.size === 0 && this.stallListeners.get(runId) === set) this.stallListeners.delete(runId);
    };
  }

  stalled(runId: string, fault: StorageFault): void {
    for (const listener of this.stallListeners.get(runId) ?? []) listener(fault);
  }
}
