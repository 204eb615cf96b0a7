import type { ThreadEventParams } from "./thread-event-log.js";

/** An event of LangGraph's `streamEvents(..., { version: "v3" })`, as `@langchain/langgraph/stream` types it. */
export interface LangGraphProtocolEvent {
  method: string;
  params: { namespace: string[]; timestamp: number; node?: string; data: unknown };
}

/** What the thread's log gets for one LangGraph event: zero or more `(method, params)` pairs. */
export interface ProtocolFrame {
  method: string;
  params: ThreadEventParams;
}

/**
 * Turns LangGraph's protocol events into the events a thread's clients see. LangGraph already speaks the
 * protocol (content-block `messages`, `tools`, `lifecycle` of subgraphs, `custom:<name>` of stream
 * transformers); the server adds what only it knows and removes what is not the graph's to say:
 *
 * 1. The root namespace's `lifecycle` is the run's, which the executor emits from the run's status
 *    (`running` when it starts, `completed` / `interrupted` / `failed` when it ends): LangGraph's own
 *    root `completed` would also follow an `interrupt()`.
 * 2. An `interrupt()` becomes `input.requested` (`interrupt_id`, `payload`), once per interrupt id, from
 *    whichever of the `__interrupt__` update and the `values` chunk carries it first; neither is passed on
 *    as state (a `values` chunk that held only interrupts is dropped).
 * 3. Everything else passes unchanged (payloads become wire JSON when stored).
 */
export class ProtocolEventMapper {
  private readonly requested = new Set<string>();

  map(event: LangGraphProtocolEvent): ProtocolFrame[] {
    const { method, params } = event;
    const namespace = params.namespace ?? [];
    if (method === "lifecycle" && namespace.length === 0) return [];
    if (method === "updates" && isInterruptUpdate(params.data)) return this.inputRequested(namespace, params.timestamp, params.data.values);
    if (method === "values" && isRecord(params.data) && "__interrupt__" in params.data) {
      const { __interrupt__: interrupts, ...values } = params.data;
      const frames = this.inputRequested(namespace, params.timestamp, interrupts);
      if (Object.keys(values).length > 0) frames.push({ method, params: { ...params, namespace, data: values } });
      return frames;
    }
    return [{ method, params: { ...params, namespace } }];
  }

  /** Interrupt ids this run announced (its end is `interrupted` when it has any still pending). */
  get interruptIds(): ReadonlySet<string> {
    return this.requested;
  }

  private inputRequested(namespace: string[], timestamp: number, interrupts: unknown): ProtocolFrame[] {
    const frames: ProtocolFrame[] = [];
    for (const entry of Array.isArray(interrupts) ? interrupts : []) {
      if (!isRecord(entry) || typeof entry.id !== "string" || this.requested.has(entry.id)) continue;
      this.requested.add(entry.id);
      frames.push({
        method: "input.requested",
        params: { namespace, timestamp, data: { interrupt_id: entry.id, payload: entry.value } },
      });
    }
    return frames;
  }
}

function isInterruptUpdate(data: unknown): data is { node: "__interrupt__"; values: unknown } {
  return isRecord(data) && data.node === "__interrupt__";
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
