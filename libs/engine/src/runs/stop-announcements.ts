import type { EmittedEvent } from "../streaming/types.js";

/** LangGraph's key for a stop in `updates` and `values` chunks: `interrupt()` (with its payloads) or a breakpoint (`[]`). */
const INTERRUPT_KEY = "__interrupt__";

/**
 * The events that tell a client its run has stopped: LangGraph's `__interrupt__` chunks in the `updates`
 * and `values` modes, at the root or in a subgraph (`updates|ns`). A client may act on one at once:
 * RemoteGraph stops reading its stream there and resumes the thread with a `Command` in the next request.
 * The run's thread is busy until settlement has written the run's end, so such a request would be refused
 * (`multitask_strategy: reject`, 422). The executor therefore holds these events back and settlement
 * publishes them once the thread is free, just before the stream ends. Every other event is published
 * as it comes: only the announcement waits, for the few milliseconds settlement takes.
 *
 * The order of the stream changes only in that an announcement follows the events LangGraph emitted after
 * it in the same step (other nodes of that step): the SDK merges an `__interrupt__` values chunk into the
 * values it has, whatever their order.
 */
export class StopAnnouncements {
  private held: EmittedEvent[] = [];

  /** True when `event` announces the run's stop: it is kept for `release` instead of being published now. */
  hold(event: EmittedEvent): boolean {
    if (!announcesStop(event)) return false;
    this.held.push(event);
    return true;
  }

  /**
   * Publishes the held events in the order they came. Idempotent: settlement calls it at the first point
   * where the thread is free, and again at its end for the paths where that point came later.
   */
  async release(publish: (event: EmittedEvent) => Promise<void>): Promise<void> {
    const held = this.held;
    this.held = [];
    for (const event of held) await publish(event);
  }
}

function announcesStop({ event, data }: EmittedEvent): boolean {
  const mode = event.split("|", 1)[0];
  if (mode !== "updates" && mode !== "values") return false;
  return typeof data === "object" && data !== null && !Array.isArray(data) && Object.hasOwn(data, INTERRUPT_KEY);
}
