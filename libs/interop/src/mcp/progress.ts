import type { ProgressToken, ServerNotification, ServerRequest } from "@modelcontextprotocol/sdk/types.js";
import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
import type { Run } from "@agent-server/core";
import type { StreamEvent } from "@agent-server/engine";

/** Sends `notifications/progress` for one call, while its run streams. */
export interface ProgressReporter {
  /** Reports the run's admission, then one notification per graph step, until `events` end. Never rejects. */
  forward(run: Run, events: AsyncIterable<StreamEvent>): Promise<void>;
}

/**
 * Progress for a call whose client sent a `progressToken` (undefined otherwise: nothing is streamed for
 * it). The run streams LangGraph's `updates` mode, one event per node that finished a step; each becomes
 * a notification: `progress` counts up from 0 (the admission), no `total` (a graph's step count is not
 * known ahead), `message` names what happened. Notifications go on the call's own response stream
 * (the SDK relates them to the request). They are best effort: one that cannot be sent is dropped.
 */
export function progressReporter(extra: RequestHandlerExtra<ServerRequest, ServerNotification>): ProgressReporter | undefined {
  const token = extra._meta?.progressToken;
  if (token === undefined) return undefined;
  return {
    async forward(run, events) {
      let progress = 0;
      const send = (message: string) => notify(extra, token, progress++, message);
      await send(`Run ${run.run_id} admitted on thread ${run.thread_id}.`);
      try {
        for await (const event of events) {
          const message = progressMessage(event);
          if (message) await send(message);
        }
      } catch {
        // The event stream is a preview; the result comes from the run's end.
      }
    },
  };
}

/** What a stream event tells a client about progress, or undefined for events that tell nothing. */
export function progressMessage(event: StreamEvent): string | undefined {
  if (event.event === "metadata") {
    const attempt = Number((event.data as { attempt?: unknown } | null)?.attempt);
    return attempt > 1 ? `Run restarted (attempt ${attempt}) after its worker was lost.` : undefined;
  }
  if (event.event !== "updates" || typeof event.data !== "object" || event.data === null) return undefined;
  const nodes = Object.keys(event.data);
  if (nodes.includes("__interrupt__")) return "Stopped at an interrupt: waiting for input.";
  return nodes.length > 0 ? `Step done: ${nodes.join(", ")}.` : undefined;
}

async function notify(
  extra: RequestHandlerExtra<ServerRequest, ServerNotification>,
  progressToken: ProgressToken,
  progress: number,
  message: string,
): Promise<void> {
  try {
    await extra.sendNotification({ method: "notifications/progress", params: { progressToken, progress, message } });
  } catch {
    // The client's stream is gone: the call's abort signal takes care of the run.
  }
}
