import { EnvironmentError, USAGE, UsageError } from "./args.js";

// How a command ends: its exit code (see main), and the one line an operator reads for a failure.

/** A command that does its work and exits: its lines go to stdout, a failure to stderr under its name. */
export async function oneShot(name: string, run: (print: (line: string) => void) => Promise<unknown>): Promise<number> {
  try {
    await run((line) => process.stdout.write(`${line}\n`));
    return 0;
  } catch (error) {
    return failure(error, (message) => process.stderr.write(`agent-server ${name}: ${message}\n`));
  }
}

export function usageFailure(error: unknown): number {
  if (!(error instanceof UsageError)) throw error;
  if (error instanceof EnvironmentError) {
    process.stderr.write(`agent-server: ${error.message}\n`);
    return 2;
  }
  process.stderr.write(`agent-server: ${error.message}\n\n${USAGE}`);
  return 2;
}

/**
 * A bad command line or project (config, graph files), or a database still unreachable after
 * --database-wait, is exit 2; anything else (a file that is not a snapshot, a wrong password) is 1.
 */
export async function failure(error: unknown, report: (message: string) => void): Promise<number> {
  if (error instanceof UsageError) return usageFailure(error);
  if ((error as Error)?.name === "SnapshotFormatError") {
    report((error as Error).message);
    return 1;
  }
  // One line for an operator (the database address, the cause, how long was waited), not a stack.
  if ((error as Error)?.name === "DatabaseUnreachableError") {
    report((error as Error).message);
    return 2;
  }
  const { InvalidInputError } = await import("@agent-server/core");
  if (error instanceof InvalidInputError) {
    report((error as Error).message);
    return 2;
  }
  report((error as Error)?.stack ?? String(error));
  return 1;
}
