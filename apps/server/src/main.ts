import { resolve } from "node:path";
import { failure, oneShot, parseCli, USAGE, usageFailure, type CliOptions, type ScaffoldOptions } from "./cli/index.js";
import { followSupervisor, SUPERVISED_ENV, type ChildMessage } from "./serve/reload.js";
import { handleSignals } from "./serve/signals.js";
import type { StartedServer } from "./serve/start-server.js";
import { VERSION } from "./version.js";

// The server's modules (engine, drivers, LangChain) load only for a command that needs them, so
// --help, --version and a wrong command line answer at once: what is imported above loads none of them,
// and each command below loads its own module by name when it runs.

/** How long a server whose dev supervisor died may take to stop before it exits regardless. */
const ORPHAN_STOP_MS = 10_000;

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
    return oneShot("migrate", async (print) => (await import("./cli/migrate.js")).migrate(cli, print));
  }
  if (options.command === "store") {
    const cli = options;
    return oneShot("store reindex", async (print) => (await import("./cli/store-reindex.js")).storeReindex(cli, print));
  }
  if (options.command === "keys") {
    const cli = options;
    return oneShot("keys rotate", async (print) => (await import("./cli/keys-rotate.js")).rotateKeys(cli, print));
  }
  if (options.command === "snapshot" || options.command === "import-dev") {
    const cli = options;
    return oneShot(cli.command, async (print) => (await import("./snapshot/cli.js")).runSnapshotCommand(cli, print));
  }

  const { createLogger } = await import("./observability/logger.js");
  const logger = createLogger(options.logFormat);
  if (options.reload && !process.env[SUPERVISED_ENV]) {
    try {
      const { superviseWithReload } = await import("./serve/reload.js");
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
    const { readProject, startServer, withTracingShutdown } = await import("./serve/start-server.js");
    const project = await readProject(options);
    // After the project's env file is applied (it may set OTEL_*), before anything opens or serves.
    const { startTracing } = await import("./observability/tracing/index.js");
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

const code = await main(process.argv.slice(2));
if (code >= 0) process.exit(code);
