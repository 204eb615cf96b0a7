import { describe, expect, it } from "vitest";
import type { Harness } from "./harness.js";

/**
 * Which optional parts of the contract a driver implements; see `describeStorageConformance`. Every
 * driver's wiring states both: a part's checks are registered when it is declared (and fail loudly if the
 * driver then lacks it), and replaced by an absence check when it is not, so no check silently
 * disappears with a missing method.
 */
export interface ConformanceOptions {
  /**
   * `RunRepo.recordResult` and `getResult`. A driver without them serves the whole LangGraph API, and
   * A2A refuses new messages (a task could not be read back). With `false` the suite checks that both are
   * absent instead of their contract: a driver has both or neither.
   */
  results: boolean;
  /** `Storage.pushConfigs`, A2A push notification configs. Without it, A2A has no push. */
  pushConfigs: boolean;
  /**
   * `Storage.withThreadLock`, the per-thread lock across connections and processes. Without it the engine
   * serializes admission, resume checks and thread maintenance within one process only.
   */
  threadLock: boolean;
  /**
   * `Storage.signals` and how far it reaches: `"database"` — every driver open on the same data hears
   * it (checked across a sibling); `"process"` — this driver object only (other processes poll);
   * `false` — none (the engine signals within its process).
   */
  signals: "process" | "database" | false;
  /**
   * TTL sweeps: `StoreRepo.sweepExpired`, `ThreadRepo.listExpired` and `sweep` (all three or none), and
   * the expiry of store items and threads they imply. Without them langgraph.json `checkpointer.ttl` and
   * `store.ttl` have no effect and the API refuses a `ttl`.
   */
  ttl: boolean;
  /**
   * Semantic store search: `StoreRepo.getIndexIdentity`, `setIndexIdentity`, `scanIndexable` and
   * `replaceVectors` (all four or none), and the `vectors` / `query` options of put and search they imply.
   * Without them langgraph.json `store.index` stops the server's start.
   */
  vectors: boolean;
  /**
   * `ThreadRepo.storesValuesAt`: settlement and `update` may leave a thread's values in a checkpoint
   * (`valuesAt`), and every read returns them. Without it the engine writes the values into the thread
   * at every run's end, O(state) a turn.
   */
  valuesAt: boolean;
  /**
   * `RunRepo.create`'s `claim`: a pending run due now on a free thread is inserted already claimed
   * (running under the caller's lease, attempt 1, its thread busy), as `claimNext` would claim it, so a
   * process with a free worker runs it without the queue's round trip. Without it the driver ignores
   * `claim` (the run is inserted pending and the engine's claim loop takes it).
   */
  claimOnCreate: boolean;
  /**
   * `RunRepo.createWithThread`: a new thread and its first run written in one transaction (the thread
   * already `busy` when the run is claimed). Without it the engine and A2A make two writes (the thread, then
   * the run). Omitted (a wiring written before this option): stated by the driver itself — the contract's
   * checks when its `RunRepo` has the method, the absence check when it has not.
   */
  createWithThread?: boolean;
}

export function describeValuesAtAbsent(h: Harness): void {
  describe("thread values left in a checkpoint (left out by this driver)", () => {
    it("ThreadRepo does not say it stores valuesAt", async () => {
      const s = await h.open();
      expect(s.threads.storesValuesAt).toBeFalsy();
    });
  });
}

/** For a driver declared without results: neither method may be there, not even one of them. */
export function describeResultsAbsent(h: Harness): void {
  describe("run results (left out by this driver)", () => {
    it("RunRepo has neither recordResult nor getResult", async () => {
      const s = await h.open();
      expect({ recordResult: s.runs.recordResult, getResult: s.runs.getResult }).toEqual({ recordResult: undefined, getResult: undefined });
    });
  });
}

export function describePushConfigsAbsent(h: Harness): void {
  describe("A2A push configs (left out by this driver)", () => {
    it("Storage has no pushConfigs", async () => {
      const s = await h.open();
      expect(s.pushConfigs).toBeUndefined();
    });
  });
}
