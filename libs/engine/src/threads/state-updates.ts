import { toCommand } from "../runs/command.js";
import { AgentServerError, InvalidInputError } from "@agent-server/core";
import type { RunCommand } from "../runs/run-request.js";

/** One update of a superstep, as `POST /threads` (`supersteps`) carries it. */
export interface StateUpdate {
  values?: unknown;
  command?: RunCommand | null;
  as_node?: string;
}

export interface Superstep {
  updates: StateUpdate[];
}

/** LangGraph's `bulkUpdateState` input: a command replaces the values of its update. */
export function toLangGraphSupersteps(supersteps: Superstep[]): Array<{ updates: Array<{ values: unknown; asNode?: string }> }> {
  return supersteps.map((step) => ({
    updates: step.updates.map((update) => ({
      values: update.command != null ? toCommand(update.command) : update.values,
      asNode: update.as_node,
    })),
  }));
}

/** LangGraph's errors for updates that cannot apply (unknown node, ambiguous update, empty input). */
const LANGGRAPH_INPUT_ERRORS = new Set(["InvalidUpdateError", "EmptyInputError", "EmptyChannelError"]);

/**
 * Runs a state update, turning what the caller got wrong into `InvalidInputError` (HTTP 422) instead of
 * a 500: LangGraph's update errors, and plain `Error`/`TypeError`s thrown by the graph's reducers while
 * applying the caller's values (e.g. a message that cannot be coerced). Errors that carry a `code` come
 * from the database or the runtime and stay what they are.
 */
export async function applyingUpdate<T>(apply: () => Promise<T>): Promise<T> {
  try {
    return await apply();
  } catch (error) {
    if (error instanceof AgentServerError) throw error;
    if (error instanceof Error && isCallerError(error)) {
      throw new InvalidInputError(`invalid state update: ${error.message.split("\n")[0]}`);
    }
    throw error;
  }
}

function isCallerError(error: Error): boolean {
  if (LANGGRAPH_INPUT_ERRORS.has(error.name)) return true;
  const plain = error.constructor === Error || error.constructor === TypeError;
  return plain && (error as { code?: unknown }).code === undefined;
}
