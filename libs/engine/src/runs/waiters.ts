import type { DefaultValues, Run, RunResult, RunStatus, Thread } from "@agent-server/core";

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
}
