import { InvalidInputError } from "@agent-server/core";
import type { EngineRunKwargs } from "./run-request.js";

/**
 * Run time limits. The server's limit (`EngineOptions.runTimeoutMs`: `--run-timeout`, the official
 * container's `BG_JOB_TIMEOUT_SECS`, langgraph.json `run_timeout`) applies to every run; an assistant's
 * `config.run_timeout` (seconds, 0 = none) replaces it for that assistant's runs, and a run request's
 * `config.run_timeout` may only shorten what applies. Admission fixes the result in the run's config
 * when it differs from the server's, so the limit a run is held to never depends on which process
 * executes it. The limit is counted per attempt, from the moment a worker starts executing it.
 */

/** The config key, in seconds, on assistants and run requests. */
export const RUN_TIMEOUT_KEY = "run_timeout";

/** The error a run that exceeded its limit ends with (`status: "timeout"`, the run's stored error). */
export class RunTimedOut extends Error {
  override readonly name = "TimeoutError";
  constructor(readonly limitMs: number) {
    super(`the run exceeded its time limit of ${formatSeconds(limitMs)} and was stopped`);
  }
}

/**
 * The limit in seconds to write into a run's config at admission, or undefined to leave the config as
 * the request made it (the server's limit applies, and no request value was given).
 */
export function admittedRunTimeout(
  assistantConfig: Record<string, unknown>,
  requestConfig: Record<string, unknown> | undefined,
  serverLimitMs: number | undefined,
): number | undefined {
  const assistant = seconds(assistantConfig[RUN_TIMEOUT_KEY], "the assistant's config.run_timeout");
  const requested = seconds(requestConfig?.[RUN_TIMEOUT_KEY], "config.run_timeout");
  if (assistant === undefined && requested === undefined) return undefined;
  const applies = assistant ?? (serverLimitMs ? serverLimitMs / 1000 : 0);
  // 0 is "no limit": a request may set a limit where none applies, or a shorter one, never a longer one.
  if (requested === undefined || requested === 0) return applies;
  return applies === 0 ? requested : Math.min(applies, requested);
}

/** The limit a run is held to, in ms (0: none): its admitted config's, else the server's. */
export function runTimeoutMs(kwargs: EngineRunKwargs, serverLimitMs: number | undefined): number {
  const admitted = (kwargs.config as Record<string, unknown> | undefined)?.[RUN_TIMEOUT_KEY];
  if (typeof admitted === "number" && Number.isFinite(admitted) && admitted >= 0) return Math.round(admitted * 1000);
  return serverLimitMs ?? 0;
}

/** Node's timers fire at once past 2^31 - 1 ms (~24.8 days): a longer limit is as good as none. */
export const MAX_RUN_TIMEOUT_MS = 2 ** 31 - 1;
/** The longest limit a setting may name, in whole seconds (~24.8 days). */
export const MAX_RUN_TIMEOUT_SECONDS = Math.floor(MAX_RUN_TIMEOUT_MS / 1000);

function seconds(value: unknown, what: string): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0) {
    throw new InvalidInputError(`${what} must be a number of seconds (0 for no limit), got ${JSON.stringify(value)}`);
  }
  return value;
}

function formatSeconds(ms: number): string {
  const s = ms / 1000;
  return `${Number.isInteger(s) ? s : s.toFixed(3).replace(/0+$/, "")} s`;
}

/**
 * Holds an execution to `limitMs`: when it passes, the execution is marked `timedOut` and aborted (the
 * graph stops at its next chance), and `bound` stops waiting for work that ignores the abort (a node
 * awaiting a dead upstream): the worker is freed and the run settles `timeout` while that work is left
 * to end on its own. `disarm` when the execution ends first.
 */
export function armRunTimeout(
  execution: { controller: AbortController; timedOut?: Error },
  limitMs: number,
): { bound<T>(work: Promise<T>): Promise<T>; disarm(): void } {
  if (limitMs <= 0 || limitMs > MAX_RUN_TIMEOUT_MS) return { bound: (work) => work, disarm: () => undefined };
  let expire: (error: Error) => void = () => undefined;
  const expired = new Promise<never>((_resolve, reject) => (expire = reject));
  // Only a run that outlives its limit observes this promise; others must not see an unhandled rejection.
  expired.catch(() => undefined);
  const timer = setTimeout(() => {
    const error = new RunTimedOut(limitMs);
    execution.timedOut = error;
    execution.controller.abort(error);
    expire(error);
  }, limitMs);
  timer.unref?.();
  return {
    bound: (work) => {
      work.catch(() => undefined);
      return Promise.race([work, expired]);
    },
    disarm: () => clearTimeout(timer),
  };
}
