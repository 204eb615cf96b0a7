import { activeSpanIds, storageFault } from "@agent-server/core";
import type { RunLogger } from "@agent-server/engine";
import { pino, type Logger } from "pino";
import pinoPretty from "pino-pretty";
import type { LogFormat } from "../cli/index.js";

export type { Logger };

/**
 * The server's logger. Both formats go to stdout through one buffered writer (sonic-boom): lines collect
 * until 4 KiB or the next 200 ms tick and go out in one asynchronous write, and what is left is written
 * synchronously when the process exits, so a line is not lost when it exits right after it (shutdown, a
 * failed start); only a SIGKILL can drop the last 200 ms. Written one by one, the two lines of every run
 * were two write calls on the request path (~3 % of the server's CPU per A2A message, docs/benchmarks.md).
 * `pretty` puts each record on one line, its fields as JSON after the message, so run ids stay greppable.
 */
export function createLogger(format: LogFormat, destination: NodeJS.WritableStream = process.stdout): Logger {
  // With tracing on, a record made inside a span carries its trace_id and span_id (off: no fields added).
  const options = { base: { pid: process.pid }, timestamp: pino.stdTimeFunctions.isoTime, mixin: traceIds };
  const out = bufferedWriter(fdOf(destination));
  if (format === "json") return pino(options, out);
  return pino(
    options,
    pinoPretty({
      destination: out,
      singleLine: true,
      translateTime: "SYS:HH:MM:ss.l",
      ignore: "pid,hostname",
      colorize: Boolean((destination as { isTTY?: boolean }).isTTY),
    }),
  );
}

const FLUSH_EVERY_MS = 200;

/** pino's writer on `fd`, buffered (see createLogger); pino flushes it at exit. */
function bufferedWriter(fd: number): ReturnType<typeof pino.destination> {
  const out = pino.destination({ dest: fd, sync: false, minLength: 4096 });
  const tick = setInterval(() => {
    try {
      out.flush();
    } catch {
      // Closed or destroyed (the process is ending): nothing left to flush.
    }
  }, FLUSH_EVERY_MS);
  tick.unref();
  out.on("close", () => clearInterval(tick));
  return out;
}

/** A fresh object each time: pino merges the record's own fields into what the mixin returns. */
function traceIds(): object {
  return activeSpanIds() ?? {};
}

function fdOf(stream: NodeJS.WritableStream): number {
  const fd = (stream as { fd?: number }).fd;
  return typeof fd === "number" ? fd : 1;
}

/** The engine's run hooks as log records: one when a run starts, one when it ends, with its duration. */
export function runLogger(logger: Logger): RunLogger {
  return {
    runStarted(runId, threadId, attempt) {
      logger.info({ run_id: runId, thread_id: threadId, attempt }, "run started");
    },
    runRequeued(runId, threadId, attempt, reason) {
      // The run resumes from its last checkpoint as the next attempt. A lost worker (a killed process) is
      // a warning; a shutdown handing it back ("drained", "shutdown") is the plan.
      const handedBack = reason === "drained" || reason === "shutdown";
      logger[handedBack ? "info" : "warn"](
        { run_id: runId, thread_id: threadId, attempt, reason },
        handedBack ? `run handed back after attempt ${attempt} (${reason})` : `run requeued after attempt ${attempt} (${reason})`,
      );
    },
    runEnded(runId, threadId, status, durationMs) {
      const level = status === "error" || status === "timeout" ? "warn" : "info";
      logger[level]({ run_id: runId, thread_id: threadId, status, duration_ms: durationMs }, `run ended (${status}) in ${durationMs} ms`);
    },
    settledListenerFailed(runId, error) {
      // E.g. an A2A push notification that could not be queued; the run itself ended normally.
      logger.error({ run_id: runId, err: error }, "after-settlement listener failed");
    },
    deliveryRefused(delivery, reason) {
      // Only the origin: a webhook's path or query may carry a receiver's secret.
      const target = URL.canParse(delivery.url) ? new URL(delivery.url).origin : delivery.url.slice(0, 200);
      logger.warn(
        { delivery_id: delivery.delivery_id, kind: delivery.kind, run_id: delivery.run_id, target, reason },
        `${delivery.kind} delivery to ${target} refused by the webhook URL policy (not sent): ${reason}`,
      );
    },
    settlementStepFailed(runId, step, error) {
      // The run's terminal status is written; the other steps (waiters, streams, listeners) still ran.
      logger.error({ run_id: runId, step, err: error }, `settlement step "${step}" failed`);
    },
    backgroundFailed(task, error) {
      // Storage unreachable for a round of a background loop; the loop tries again at its next tick. An
      // outage fails every loop at every tick: one line each, without the stack a bug would need.
      const fault = storageFault(error);
      if (fault) logger.warn({ task, code: fault.code }, `background ${task} round failed: ${fault.reason} (retrying at the next tick)`);
      else logger.error({ task, err: error }, `background ${task} round failed (retrying at the next tick)`);
    },
    runFailed(runId, error) {
      logger.error({ run_id: runId, err: error }, "run could not be settled (it is requeued when its lease runs out)");
    },
    ttlSwept(kind, counts) {
      // One line per sweep round that removed something (langgraph.json checkpointer.ttl / store.ttl).
      const words: Record<string, [string, string]> = {
        thread_deleted: ["thread deleted", "threads deleted"],
        thread_trimmed: ["thread trimmed to its latest checkpoint", "threads trimmed to their latest checkpoint"],
        store_item: ["store item deleted", "store items deleted"],
      };
      const said = Object.entries(counts).map(([what, n]) => `${n} ${words[what]?.[n === 1 ? 0 : 1] ?? what}`);
      logger.info({ ttl_sweep: kind, ...counts }, `TTL sweep (${kind}): ${said.join(", ")}`);
    },
  };
}
