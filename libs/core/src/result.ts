import type { Checkpoint, DefaultValues, Interrupt, JsonValue } from "./model.js";

/**
 * What one run produced: the engine's outcome of an execution and the payload settlement works from.
 * Status and error stay on `Run`; a result never carries them.
 *
 * Stored per run (`RunRepo.recordResult`) only for server-marked A2A runs, so an A2A task can be read
 * back after later turns, pruning, restarts and crashes.
 */
export interface RunResult {
  /** Final state values of the run; a stored result's `messages` are its own turn's (`turnValues`). */
  values: DefaultValues;
  /** Interrupts the run stopped at, if any. */
  interrupts?: Interrupt[];
  /** The graph's declared reply (by default: the text of the last AI message). */
  reply?: JsonValue;
  /** Coordinates of the last checkpoint the run wrote. */
  checkpoint?: Checkpoint;
}
