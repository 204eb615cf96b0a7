import { isUnknownInterruptError } from "../runs/unknown-interrupt.js";
import type { Run } from "@agent-server/core";
import type { CompiledGraph } from "../graphs/types.js";
import { graphCall, type GraphCallOptions } from "../runs/execute-graph.js";
import { graphTracing } from "../tracing/index.js";
import type { ExecutionOutcome } from "../runs/settlement-types.js";
import type { ThreadSnapshot } from "../runs/outcome.js";
import type { EngineRunKwargs } from "../runs/run-request.js";
import { ProtocolEventMapper, type LangGraphProtocolEvent } from "./protocol-events.js";
import type { ThreadEventLog } from "./thread-event-log.js";

/** Events a run may have appended and not stored yet before it waits for storage to catch up. */
const MAX_BACKLOG = 2000;

/** The root lifecycle statuses a run goes through on its thread's protocol stream. */
export type RootStatus = "running" | "completed" | "interrupted" | "failed";

/**
 * Executes runs started through the thread streaming protocol (`kwargs.protocol`): the graph streams
 * through `streamEvents(..., { version: "v3" })`, so LangGraph's own protocol events (with the graph's
 * stream transformers) reach the thread's log, framed by the run's root lifecycle:
 *
 * 1. `lifecycle: running` (root namespace, `graph_name` the graph id) when the attempt starts, and for a
 *    run that resumes interrupts, `input.answered` with their ids (so every client on the thread, not
 *    only the one that answered, stops offering them);
 * 2. the graph's events, mapped by `ProtocolEventMapper`;
 * 3. `lifecycle: completed | interrupted | failed` when it ends, appended by the executor before
 *    settlement's terminal write, so it precedes every event of the thread's next run, wherever that
 *    one executes. A run handed back by a shutdown ends nothing: its next attempt starts with `running`.
 */
export class ProtocolRuns {
  constructor(private readonly log: ThreadEventLog) {}

  async execute(run: Run, graph: CompiledGraph, graphId: string, options: GraphCallOptions): Promise<void> {
    await this.lifecycle(run, graphId, "running");
    const answered = (run.kwargs as EngineRunKwargs).answered;
    if (answered?.length) {
      const params = { namespace: [], timestamp: Date.now(), data: { interrupt_ids: answered } };
      await this.log.append(run.thread_id, run.run_id, "input.answered", params);
    }
    // streamEvents engages LangChain's callbacks anyway: tracing adds its own at little cost.
    const { input, config } = graphCall(run, options, graphTracing(graphId, true)?.callbacks);
    const stream = (await graph.streamEvents(input, {
      ...config,
      version: "v3",
    } as never)) as unknown as AsyncIterable<LangGraphProtocolEvent>;
    const mapper = new ProtocolEventMapper();
    // Appends are not awaited one by one: those made while a write is under way are stored in the next one.
    // The last one settles after every earlier one; a failed one fails the run (at the latest, at the end).
    let last: Promise<unknown> = Promise.resolve();
    let failed: { error: unknown } | undefined;
    for await (const event of stream) {
      for (const frame of mapper.map(event)) {
        const appended = this.log.append(run.thread_id, run.run_id, frame.method, frame.params);
        appended.catch((error: unknown) => (failed ??= { error }));
        last = appended;
        if (this.log.backlog(run.thread_id) >= MAX_BACKLOG) await appended;
      }
      if (failed) throw failed.error;
    }
    await last;
  }

  /** Appends the run's terminal root lifecycle for the outcome settlement is about to write. */
  async end(run: Run, graphId: string, outcome: ExecutionOutcome, snapshot: ThreadSnapshot | undefined): Promise<void> {
    if (outcome.kind === "error" || outcome.kind === "timeout") {
      await this.lifecycle(run, graphId, "failed", errorMessage(outcome.error), refusedResume(outcome.error));
      return;
    }
    const pending = outcome.kind === "interrupted" || Object.keys(snapshot?.interrupts ?? {}).length > 0;
    await this.lifecycle(run, graphId, pending ? "interrupted" : "completed");
  }

  private async lifecycle(run: Run, graphId: string, status: RootStatus, error?: string, extra?: object): Promise<void> {
    const data = { event: status, graph_name: graphId, ...(error !== undefined ? { error } : {}), ...extra };
    await this.log.append(run.thread_id, run.run_id, "lifecycle", { namespace: [], timestamp: Date.now(), data });
  }
}

/**
 * What a refused strict resume adds to the root `failed` lifecycle, in the Python server's field names:
 * how it failed (`not_pending`, `empty_map`, `ambiguous`), the ids it named that are not pending, and the
 * ids still pending (they can still be answered: LangGraph refused before writing anything).
 */
function refusedResume(error: unknown): object | undefined {
  if (!isUnknownInterruptError(error)) return undefined;
  return { reason: error.reason, interrupt_ids: [...error.interruptIds], pending_ids: [...error.pendingIds] };
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
