import { v7 as uuidv7 } from "uuid";
import { NotFoundError, type Run, type Storage } from "@agent-server/core";
import { endOfRun, withStreamEnd } from "../streaming/run-stream-end.js";
import { closeOnAbort, type RunEventStream, type StreamHub } from "../streaming/stream-hub.js";
import type { StreamEvent } from "../streaming/types.js";
import type { RunEnds } from "./run-ends.js";
import type { AdmissionOptions, RunCreateRequest } from "./run-request.js";
import type { RunEnd, RunWaiters } from "./waiters.js";

/** Admits a run, telling whether a worker of this process claimed it at admission (`Engine`'s `admit`). */
export type AdmitRun = (request: RunCreateRequest, options: AdmissionOptions) => Promise<{ run: Run; claimedHere: boolean }>;

/**
 * A caller following a run: its live events (subscribed before it can start, or joined later) and its
 * end, wherever it executes. `Engine`'s `streamRun`, `joinStream`, `waitRun`, `createRunAndWait` and
 * `createRunWatched`, which document them.
 */
export class RunWatch {
  constructor(
    private readonly storage: Storage,
    private readonly hub: StreamHub,
    private readonly waiters: RunWaiters,
    private readonly ends: RunEnds,
    private readonly admit: AdmitRun,
  ) {}

  async streamRun(
    request: RunCreateRequest,
    options: AdmissionOptions = {},
    stream: { signal?: AbortSignal; end?: boolean } = {},
  ): Promise<{ run: Run; events: AsyncIterable<StreamEvent> }> {
    const runId = options.runId ?? uuidv7();
    const subscription = this.hub.subscribe(runId);
    closeOnAbort(subscription, stream.signal);
    try {
      // Whichever process claims the run, its events reach this subscription.
      await this.hub.ready(runId);
      const { run } = await this.admit(request, { ...options, runId });
      const readRun = () => this.storage.runs.get(runId);
      return { run, events: stream.end ? withStreamEnd(runId, subscription, readRun) : subscription };
    } catch (error) {
      subscription.close();
      throw error;
    }
  }

  async *joinStream(
    runId: string,
    options: { threadId?: string; lastEventId?: string; checkpointId?: string; end?: boolean; signal?: AbortSignal } = {},
  ): AsyncGenerator<StreamEvent> {
    const subscription = this.hub.subscribe(runId);
    closeOnAbort(subscription, options.signal);
    try {
      await this.hub.ready(runId);
      const run = await this.storage.runs.get(runId, options.threadId);
      if (!run) throw new NotFoundError(`Run "${runId}" not found`);
      let lastId = -1;
      const lastEventId = options.lastEventId ?? (options.checkpointId !== undefined ? "-1" : undefined);
      if ((run.kwargs as { resumable?: boolean }).resumable && lastEventId !== undefined) {
        for (const event of await this.hub.replay(runId, lastEventId, options.checkpointId)) {
          lastId = Number(event.id);
          yield event;
        }
      }
      if (run.status !== "pending" && run.status !== "running") {
        if (options.end && !options.signal?.aborted) yield endOfRun(run);
        return;
      }
      if (options.signal?.aborted) return;
      const readRun = () => this.storage.runs.get(runId);
      for await (const event of options.end ? withStreamEnd(runId, subscription, readRun) : subscription) {
        if (event.id !== undefined && Number(event.id) <= lastId) continue;
        yield event;
      }
    } finally {
      subscription.close();
    }
  }

  async waitRun(runId: string, threadId?: string): Promise<RunEnd> {
    const waiter = this.waiters.wait(runId);
    const unfollow = await this.ends.follow(runId, threadId);
    try {
      return await this.ends.await(runId, threadId, waiter.promise);
    } finally {
      unfollow();
      waiter.cancel();
    }
  }

  async createRunAndWait(request: RunCreateRequest, options: AdmissionOptions = {}): Promise<{ run: Run; end: RunEnd }> {
    const { run, end } = await this.createRunWatched(request, options);
    return { run, end: await end };
  }

  async createRunWatched(
    request: RunCreateRequest,
    options: AdmissionOptions = {},
    watch: { stream?: boolean } = {},
  ): Promise<{ run: Run; end: Promise<RunEnd>; events?: RunEventStream }> {
    const runId = options.runId ?? uuidv7();
    const waiter = this.waiters.wait(runId);
    const events = watch.stream ? this.hub.subscribe(runId) : undefined;
    let unfollow = () => {};
    let run: Run;
    try {
      if (events) await this.hub.ready(runId);
      const admitted = await this.admit(request, { ...options, runId });
      run = admitted.run;
      // Queued, the run may execute in another process: its end comes as that process's signal. Claimed
      // here, settlement here wakes the waiter, and no signal is followed (a LISTEN and an UNLISTEN on
      // PostgreSQL). Either way a signal missed (sent before the follow, or by a process this run was handed
      // back to) is made up for by the poll of the run's status.
      if (!admitted.claimedHere) unfollow = await this.ends.follow(runId, options.threadId);
    } catch (error) {
      unfollow();
      waiter.cancel();
      events?.close();
      throw error;
    }
    // Just admitted, so pending: its status is read only if neither settlement here nor an end signal
    // tells first (a lost signal), a poll interval later.
    const end = this.ends.await(runId, run.thread_id, waiter.promise, { admitted: true }).finally(() => {
      unfollow();
      waiter.cancel();
    });
    return { run, end, ...(events ? { events } : {}) };
  }
}
