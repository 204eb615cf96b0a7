import { RunControl } from "@langchain/langgraph";
import { nowIso, outsideTrace, type ClaimedRun, type RunClaim, type Storage } from "@agent-server/core";
import { isAnnouncedOwner, leaseOwnerIsGone } from "./lease-owner.js";
import type { BackgroundTask } from "./run-logger.js";

export interface WorkerPoolOptions {
  /** Runs of different threads executing at once in this process. */
  workers: number;
  /** How long a claim stays valid without renewal; a dead worker's runs are reaped after it ends. */
  leaseMs: number;
  /** How often storage is polled for runs admitted elsewhere or deferred by `after_seconds`. */
  pollMs: number;
  /** Identifies this process's claims (`newLeaseOwner`). */
  owner: string;
  /** A claim, renewal or reaping round failed (storage unreachable); the loop retries at its next tick. */
  onError: (task: BackgroundTask, error: unknown) => void;
}

/**
 * A run a worker executes: as claimed, plus what admission knew when it inserted the run claimed here.
 * `newThread`: the admitting call created the run's thread, so the thread has no checkpoint yet.
 */
export interface PoolRun extends ClaimedRun {
  newThread?: boolean;
}

/** Why a run went back to the queue: its lease lapsed, or its owner is known to be gone (start-up). */
export type RequeueReason = "lease-expired" | "owner-gone";

export interface ActiveExecution {
  controller: AbortController;
  /** LangGraph's drain request: the graph stops at its next superstep boundary, checkpoint saved (`GraphDrained`). */
  control: RunControl;
  /** The lease owner this execution holds the run under (the pool's `owner`). */
  owner: string;
  /** Set by a rollback cancel: settlement erases the run instead of keeping it. */
  rollback: boolean;
  /** Set by settlement once the terminal write landed: a later rollback is refused (the run has ended). */
  rollbackClosed?: boolean;
  /** Set when the run exceeded its time limit (run-timeout.ts): it ends `timeout`, whatever the graph does. */
  timedOut?: Error;
}

/**
 * Claims pending runs from storage and executes up to `workers` of them at once. Leases are renewed
 * while a run executes; a run whose lease is gone (cancelled by another process, or erased) is aborted
 * here. A run whose worker died is put back in the queue (`RunRepo.requeue`) and executed again as its
 * next attempt: at start-up when its owner was a process of this host that is gone, else once its lease
 * has lapsed (another process may hold it: only the lease tells).
 */
export class WorkerPool {
  readonly active = new Map<string, ActiveExecution>();
  private readonly running = new Set<Promise<void>>();
  private pumping = false;
  /** True while a claim is on its way back from storage: its run is running there, but not active here yet. */
  private claiming = false;
  /** Aborts that arrived for a run not active here while a claim was in flight (run id -> rollback). */
  private abortedWhileClaiming = new Map<string, boolean>();
  /** Workers promised to admissions that insert their run claimed (`reserve`), not active yet. */
  private reserved = 0;
  /** The same as `abortedWhileClaiming`, for the runs of reserved workers; emptied when none is left. */
  private abortedWhileReserved = new Map<string, boolean>();
  /** The pump stopped for want of a worker while some were only reserved: it asks again when one is given back. */
  private deferredByReservation = false;
  private repump = false;
  /** How many times work was announced (`notify`): a run's end asks for more only if something came meanwhile. */
  private notices = 0;
  private stopped = true;
  private timers: NodeJS.Timeout[] = [];
  /** Renewal outlives claiming: runs finishing or draining after a stop keep their leases. */
  private renewTimer: NodeJS.Timeout | undefined;
  /** How far a stop has gone: a claim landing after it gets the same treatment as the runs before it. */
  private shutdownPhase: "none" | "drain" | "abort" = "none";

  constructor(
    private readonly storage: Storage,
    private readonly execute: (claimed: PoolRun, execution: ActiveExecution) => Promise<void>,
    private readonly onRequeued: (requeued: ClaimedRun, reason: RequeueReason) => void,
    private readonly options: WorkerPoolOptions,
  ) {}

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.shutdownPhase = "none";
    const every = (ms: number, task: BackgroundTask, fn: () => Promise<unknown>) => {
      const timer = setInterval(() => void fn().catch((error: unknown) => this.options.onError(task, error)), ms);
      timer.unref?.();
      this.timers.push(timer);
    };
    every(this.options.pollMs, "claim", async () => this.notify());
    every(Math.min(this.options.leaseMs, OWNER_CHECK_MS), "reap", () => this.reap());
    this.renewTimer = setInterval(
      () => void this.renew().catch((error: unknown) => this.options.onError("renew", error)),
      Math.max(100, Math.floor(this.options.leaseMs / 3)),
    );
    this.renewTimer.unref?.();
    this.notify();
  }

  /**
   * Start-up recovery: takes back at once the runs whose lease owner is a process of this host that no
   * longer runs (this one, killed and restarted), instead of leaving them `running` until their leases
   * lapse. Returns how many went back to the queue.
   */
  async recoverAbandoned(): Promise<number> {
    let recovered = 0;
    for (const lease of await this.storage.runs.listLeases(RECOVERY_BATCH)) {
      if (!leaseOwnerIsGone(lease.owner, this.options.owner)) continue;
      const requeued = await this.storage.runs.requeue(lease.run.run_id, { owner: lease.owner });
      if (!requeued) continue;
      recovered += 1;
      this.onRequeued(requeued, "owner-gone");
    }
    return recovered;
  }

  /** Something may be claimable now (a run was admitted or a thread freed up). */
  notify(): void {
    this.notices += 1;
    this.claimWhileFree();
  }

  private claimWhileFree(): void {
    if (this.stopped) return;
    if (this.pumping) {
      this.repump = true;
      return;
    }
    this.pumping = true;
    void outsideTrace(() => this.pump())
      .catch((error: unknown) => this.options.onError("claim", error))
      .finally(() => {
        this.pumping = false;
        if (this.repump) {
          this.repump = false;
          this.claimWhileFree();
        }
      });
  }

  abort(runId: string, options: { rollback: boolean }): boolean {
    const execution = this.active.get(runId);
    if (!execution) {
      // The run may be the one whose claim is in flight: keep the abort for it, or it would execute and
      // end `interrupted` instead of being rolled back.
      if (this.claiming) this.abortedWhileClaiming.set(runId, options.rollback || (this.abortedWhileClaiming.get(runId) ?? false));
      if (this.reserved > 0) this.abortedWhileReserved.set(runId, options.rollback || (this.abortedWhileReserved.get(runId) ?? false));
      return false;
    }
    // Too late to erase: reporting it as rolled back would be a lie, as the run stays with its status.
    if (options.rollback && execution.rollbackClosed) return false;
    execution.rollback ||= options.rollback;
    execution.controller.abort(options.rollback ? "rollback" : "interrupt");
    return true;
  }

  /**
   * Stops claiming (leases of executing runs are still renewed) and lets executing runs end on their own
   * for `graceMs`. Then every run still executing is asked to drain: it stops at its next superstep
   * boundary with its checkpoint saved and is handed back to the queue as its next attempt (the
   * executor's part). After `drainMs` more, runs still inside a step are aborted with reason "shutdown",
   * which the executor also hands back: their next attempt resumes from the last checkpoint, as after
   * a crash. Resolves once every execution has ended.
   */
  async stop(graceMs: number, drainMs = 0): Promise<void> {
    this.stopped = true;
    for (const timer of this.timers) clearInterval(timer);
    this.timers = [];
    try {
      if (await this.allEndWithin(graceMs)) return;
      this.shutdownPhase = "drain";
      for (const execution of this.active.values()) execution.control.requestDrain("shutdown");
      if (await this.allEndWithin(drainMs)) return;
      this.shutdownPhase = "abort";
      for (const execution of this.active.values()) execution.controller.abort("shutdown");
      // A claim that was in flight when the stop began joins `running` late: wait for it too.
      while (this.running.size > 0) await Promise.allSettled([...this.running]);
    } finally {
      clearInterval(this.renewTimer);
    }
  }

  private allEndWithin(ms: number): Promise<boolean> {
    const all = Promise.allSettled([...this.running]).then(() => true);
    return ms <= 0 && this.running.size > 0 ? Promise.resolve(false) : Promise.race([all, delay(ms).then(() => false)]);
  }

  /**
   * A free worker for a run this process is about to admit, to be inserted claimed by it (`RunRepo.create`'s
   * `claim`): the run then starts here without the queue's round trip (a claim's statements, a wake-up).
   * Undefined when every worker is busy or promised, or the pool is stopped. Hand it back with `adopt`
   * (the run was inserted `running`) or `release` (it was not, or admission failed).
   */
  reserve(): RunClaim | undefined {
    if (this.stopped || this.active.size + this.reserved >= this.options.workers) return undefined;
    this.reserved += 1;
    return { owner: this.options.owner, leaseMs: this.options.leaseMs };
  }

  /** Executes a run admission inserted claimed with a reserved worker (attempt 1). */
  adopt(claimed: PoolRun): void {
    // Nothing else was claimed with it: only work announced meanwhile makes the pool ask again at its end.
    this.startExecution({ ...claimed, more: false }, this.abortedWhileReserved.get(claimed.run.run_id));
    this.unreserve();
  }

  /** Gives back a reserved worker whose run was not inserted claimed. */
  release(): void {
    this.unreserve();
  }

  private unreserve(): void {
    this.reserved = Math.max(0, this.reserved - 1);
    if (this.reserved === 0) this.abortedWhileReserved = new Map();
    if (this.deferredByReservation) {
      this.deferredByReservation = false;
      this.claimWhileFree();
    }
  }

  private async pump(): Promise<void> {
    while (!this.stopped && this.active.size + this.reserved < this.options.workers) {
      this.claiming = true;
      let claimed: ClaimedRun | null;
      try {
        claimed = await this.storage.runs.claimNext({ owner: this.options.owner, leaseMs: this.options.leaseMs });
      } finally {
        this.claiming = false;
      }
      const early = this.abortedWhileClaiming;
      this.abortedWhileClaiming = new Map();
      if (!claimed) return;
      this.startExecution(claimed, early.get(claimed.run.run_id));
      // The claim saw nothing else to take: asking again would find nothing (new work notifies anew).
      if (claimed.more === false) return;
    }
    if (this.reserved > 0) this.deferredByReservation = true;
  }

  /** Executes a claimed run; `abortedEarly`: a cancel (rollback or not) that came while it was on its way. */
  private startExecution(claimed: PoolRun, abortedEarly: boolean | undefined): void {
    const more = claimed.more !== false;
    const noticesAtClaim = this.notices;
    const execution: ActiveExecution = {
      controller: new AbortController(),
      control: new RunControl(),
      owner: this.options.owner,
      rollback: false,
    };
    this.active.set(claimed.run.run_id, execution);
    if (this.shutdownPhase !== "none") execution.control.requestDrain("shutdown");
    if (this.shutdownPhase === "abort") execution.controller.abort("shutdown");
    if (abortedEarly !== undefined) this.abort(claimed.run.run_id, { rollback: abortedEarly });
    const task = this.execute(claimed, execution)
      .catch(() => undefined)
      .finally(() => {
        this.active.delete(claimed.run.run_id);
        this.running.delete(task);
        // Its thread is free now: a run queued behind it may be claimable. None can be when the claim saw
        // no other run and no work was announced since (an admission, a wake-up, a poll tick notifies).
        if (more || this.notices !== noticesAtClaim) this.claimWhileFree();
      });
    this.running.add(task);
  }

  /**
   * Renews the leases of the runs executing here. A run whose lease this owner no longer holds as a
   * running run is aborted: cancelled or erased elsewhere, or requeued and re-claimed by another owner
   * after this process stalled past its lease (its settlement's owner-guarded terminal write then
   * changes nothing). Renewed one by one when some failed, to tell which. The abort says `lease-lost`,
   * not `interrupt`: work the run started elsewhere (a remote agent's task) is left for its next owner.
   */
  private async renew(): Promise<void> {
    const ids = [...this.active.keys()];
    if (ids.length === 0) return;
    const { owner, leaseMs } = this.options;
    const renewed = await this.storage.runs.renewLeases(ids, owner, leaseMs);
    if (renewed === ids.length) return;
    for (const id of ids) {
      if ((await this.storage.runs.renewLeases([id], owner, leaseMs)) === 0) this.active.get(id)?.controller.abort("lease-lost");
    }
  }

  /**
   * Takes back lapsed leases, and — every round, without waiting for leases — the runs of owners known to
   * be gone: a process of this host that no longer runs, or an announced owner whose presence the storage
   * no longer holds (its process died: PostgreSQL dropped its session).
   */
  private async reap(): Promise<void> {
    let requeuedAny = await this.reapGoneOwners();
    const now = nowIso();
    const expired = await this.storage.runs.listExpiredLeases(now, 50);
    for (const run of expired) {
      if (this.active.has(run.run_id)) continue;
      // Guarded by the lease's end: a lease renewed or re-claimed meanwhile, or a run another reaper
      // already took back, stays as it is.
      const requeued = await this.storage.runs.requeue(run.run_id, { expiredBefore: now });
      if (!requeued) continue;
      requeuedAny = true;
      this.onRequeued(requeued, "lease-expired");
    }
    if (requeuedAny) this.notify();
  }

  private async reapGoneOwners(): Promise<boolean> {
    const leases = (await this.storage.runs.listLeases(OWNER_CHECK_BATCH)).filter((lease) => lease.owner !== this.options.owner);
    if (leases.length === 0) return false;
    const presence = this.storage.presence;
    const announced = [...new Set(leases.map((lease) => lease.owner).filter(isAnnouncedOwner))];
    const alive = presence && announced.length > 0 ? await presence.alive(announced) : new Set<string>();
    let requeuedAny = false;
    for (const lease of leases) {
      const gone =
        leaseOwnerIsGone(lease.owner, this.options.owner) ||
        (presence !== undefined && isAnnouncedOwner(lease.owner) && !alive.has(lease.owner));
      if (!gone) continue;
      // Guarded by the owner: a run that was requeued and claimed again meanwhile is left alone.
      const requeued = await this.storage.runs.requeue(lease.run.run_id, { owner: lease.owner });
      if (!requeued) continue;
      requeuedAny = true;
      this.onRequeued(requeued, "owner-gone");
    }
    return requeuedAny;
  }
}

/** How often owners are checked for being gone (and lapsed leases reaped, when leases are longer). */
const OWNER_CHECK_MS = 3000;
/** Leases read per owner check: every run executing anywhere, far beyond what a deployment runs at once. */
const OWNER_CHECK_BATCH = 1000;

/** Leases read at start-up recovery; more is far beyond what one process executes at once. */
const RECOVERY_BATCH = 10_000;

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref?.());
}
