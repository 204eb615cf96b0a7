import { resolve } from "node:path";
import { EnvironmentError, parseCli, USAGE, UsageError, type CliOptions, type ScaffoldOptions } from "./args.js";
import type { Logger } from "./logger.js";
import { followSupervisor, SUPERVISED_ENV, type ChildMessage } from "./reload.js";
import type { StartedServer } from "./start-server.js";
import { VERSION } from "./version.js";

// The server's modules (engine, drivers, LangChain) load only for a command that needs them, so
// --help, --version and a wrong command line answer at once.

/** How long a server whose dev supervisor died may take to stop before it exits regardless. */
const ORPHAN_STOP_MS = 10_000;

/** A command that does its work and exits: its lines go to stdout, a failure to stderr under its name. */
async function oneShot(name: string, run: (print: (line: string) => void) => Promise<unknown>): Promise<number> {
  try {
    await run((line) => process.stdout.write(`${line}\n`));
    return 0;
  } catch (error) {
    return failure(error, (message) => process.stderr.write(`agent-server ${name}: ${message}\n`));
  }
}

/**
 * Exit codes: 0 done (or stopped by a signal), 1 failed at run time, 2 wrong command line or project, or a
 * PostgreSQL that stayed unreachable through --database-wait.
 */
async function main(argv: string[]): Promise<number> {
  let options: CliOptions;
  try {
    const parsed = parseCli(argv);
    if (parsed.kind === "help") {
      process.stdout.write(USAGE);
      return 0;
    }
    if (parsed.kind === "version") {
      process.stdout.write(`${VERSION}\n`);
      return 0;
    }
    if (parsed.kind === "scaffold") return await scaffold(parsed.options);
    options = parsed.options;
  } catch (error) {
    return usageFailure(error);
  }

  if (options.command === "migrate") {
    const cli = options;
    return oneShot("migrate", async (print) => (await import("./migrate.js")).migrate(cli, print));
  }
  if (options.command === "store") {
    const cli = options;
    return oneShot("store reindex", async (print) => (await import("./store-reindex.js")).storeReindex(cli, print));
  }
  if (options.command === "keys") {
    const cli = options;
    return oneShot("keys rotate", async (print) => (await import("./keys-rotate.js")).rotateKeys(cli, print));
  }
  if (options.command === "snapshot" || options.command === "import-dev") {
    const cli = options;
    return oneShot(cli.command, async (print) => (await import("./snapshot/cli.js")).runSnapshotCommand(cli, print));
  }

  const { createLogger } = await import("./logger.js");
  const logger = createLogger(options.logFormat);
  if (options.reload && !process.env[SUPERVISED_ENV]) {
    try {
      const { superviseWithReload } = await import("./reload.js");
      const ownFiles = options.snapshotSave && options.snapshot !== undefined ? [resolve(options.snapshot)] : [];
      return await superviseWithReload(argv, resolve(options.config), (line) => logger.info(line), ownFiles);
    } catch (error) {
      return failure(error, (message) => logger.error(message));
    }
  }

  // Run by `dev`'s supervisor: follow it from the start. Gone while starting: nothing is served yet
  // and the storage is crash-safe, so exit now.
  let onSupervisorGone: () => void = () => process.exit(143);
  if (process.env[SUPERVISED_ENV]) followSupervisor(() => onSupervisorGone());

  let server: StartedServer;
  try {
    const { readProject, startServer } = await import("./start-server.js");
    const project = await readProject(options);
    // After the project's env file is applied (it may set OTEL_*), before anything opens or serves.
    const { startTracing, withTracingShutdown } = await import("./tracing/index.js");
    const tracing = await startTracing(process.env, logger);
    server = withTracingShutdown(await startServer(options, project!, logger), tracing);
  } catch (error) {
    return failure(error, (message) => logger.error(message));
  }
  const stop = handleSignals(server, options.graceMs, options.drainMs, logger);
  // The supervisor died (killed outright: a graceful stop would have come as a signal). No one is left
  // to wait for the runs or to send the second signal that cuts a stop short: hand running runs back to
  // the queue now (they resume from their checkpoint on the next start) and exit.
  // A stop that hangs (a webhook drain, a storage close) is cut short after ORPHAN_STOP_MS.
  onSupervisorGone = () => {
    setTimeout(() => process.exit(143), ORPHAN_STOP_MS).unref();
    stop("SIGTERM", "dev supervisor gone", 0);
  };
  // Under `dev` with reload: tell the supervisor the port, so a restart keeps it.
  if (process.connected) process.send?.({ type: "ready", port: Number(new URL(server.url).port) } satisfies ChildMessage);
  return -1; // keep running until a signal
}

/** `new`, `dockerfile`, `compose`: write the files, print what was written. */
async function scaffold(options: ScaffoldOptions): Promise<number> {
  try {
    const { runScaffoldCommand } = await import("./scaffold/index.js");
    runScaffoldCommand(options, (line) => process.stdout.write(`${line}\n`));
    return 0;
  } catch (error) {
    return failure(error, (message) => process.stderr.write(`agent-server ${options.command}: ${message}\n`));
  }
}

function usageFailure(error: unknown): number {
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
async function failure(error: unknown, report: (message: string) => void): Promise<number> {
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

/**
 * SIGINT/SIGTERM: drain (claim no more runs, /ready answers 503, HTTP still served), let running runs
 * finish within the grace period, hand the rest back to the queue (they resume from their checkpoint on
 * the next start or another process), close the storage, exit 0. A second signal while that is under
 * way exits at once: the storage is crash-safe, and leftover runs are recovered later.
 */
function handleSignals(
  server: StartedServer,
  graceMs: number,
  drainMs: number,
  logger: Logger,
): (signal: NodeJS.Signals, reason: string, graceMs: number) => void {
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals, reason = `${signal} received`, grace = graceMs) => {
    if (stopping) {
      logger.warn({ signal }, `${reason} again: exiting now`);
      process.exit(signal === "SIGINT" ? 130 : 143);
    }
    stopping = true;
    logger.info(
      { signal, grace_ms: grace, drain_ms: drainMs },
      `${reason}: draining (running runs get ${grace / 1000} s to finish, then are handed back to the queue)`,
    );
    server.stop(grace, drainMs).then(
      () => {
        logger.info("stopped");
        process.exit(0);
      },
      (error: unknown) => {
        logger.error({ err: error }, "shutdown failed");
        process.exit(1);
      },
    );
  };
  process.on("SIGINT", (signal) => onSignal(signal));
  process.on("SIGTERM", (signal) => onSignal(signal));
  return onSignal;
}

const code = await main(process.argv.slice(2));
if (code >= 0) process.exit(code);
