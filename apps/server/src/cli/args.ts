import { statSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

export type Command = "dev" | "serve" | "migrate" | "snapshot" | "import-dev" | "store" | "keys";
/** Commands that only write files into the user's project (scaffold/): no server, storage or environment. */
export type ScaffoldCommand = "new" | "dockerfile" | "compose";
export type SnapshotAction = "export" | "import";
/** "custom": a user's own driver module (`--storage ./driver.ts:export`, or langgraph.json `storage.path`). */
export type StorageKind = "sqlite" | "memory" | "postgres" | "custom";
export type LogFormat = "pretty" | "json";

/** Everything a command needs, with the command's defaults filled in. */
export interface CliOptions {
  command: Command;
  /**
   * The command line these options came from. `readProject` reads the settings that come from the
   * environment (database URL, port, workers) again once langgraph.json's `env` is applied, so a
   * variable set only in the project's .env counts as an exported one; flags still win.
   */
  argv?: string[];
  /** langgraph.json as given (resolved against the process cwd when used). */
  config: string;
  /** Whether --config was given: `migrate` may then run without a langgraph.json. */
  configGiven: boolean;
  host: string;
  port: number;
  storage: StorageKind;
  /** Whether --storage was given: without it, langgraph.json `storage.path` selects a custom driver. */
  storageGiven: boolean;
  /** --storage <module spec> ("./driver.ts:export"), as given (resolved against the process cwd when used). */
  storageModule?: string;
  databaseUrl?: string;
  databaseSchema: string;
  /**
   * --database-wait, else $AGENT_SERVER_DATABASE_WAIT: how many seconds start-up keeps retrying while
   * PostgreSQL cannot be reached (not up yet, restarting) before it gives up with exit code 2 (default 60).
   */
  databaseWaitSeconds: number;
  /**
   * Unset: `<folder of langgraph.json>/.agent-server`, where the official dev server keeps `.langgraph_api`.
   * SQLite keeps its file there, the schema cache its `schema-cache/`; a custom driver's function export is given it.
   */
  dataDir?: string;
  workers: number;
  /** --poll-interval: the fallback poll in ms (unset: the engine's default, 1 s; 5 s on PostgreSQL). */
  pollMs?: number;
  logFormat: LogFormat;
  /** How long running runs may keep going after SIGINT/SIGTERM before they are handed back to the queue. */
  graceMs: number;
  /**
   * --drain-timeout: after the grace period, how long a run's current step may take to end (its
   * checkpoint saved) before the run is handed back mid-step.
   */
  drainMs: number;
  /** dev: restart the server when a project file changes (off with --no-reload; never for serve). */
  reload: boolean;
  /** `snapshot export|import`. */
  snapshotAction?: SnapshotAction;
  /** `snapshot export --out <file>` / `snapshot import --in <file>`, as given. */
  snapshotFile?: string;
  /** `snapshot export --decrypt`: write plaintext entries although a key is set. */
  snapshotDecrypt?: boolean;
  /** `import-dev [dir]`: the official dev server's folder (default ./.langgraph_api). */
  devDir?: string;
  /** dev/serve with --storage memory: snapshot file imported at start-up (--snapshot). */
  snapshot?: string;
  /** --snapshot-save: write the memory store back to `snapshot` on a clean shutdown. */
  snapshotSave: boolean;
  /** --max-body-size: largest request body in bytes (over langgraph.json `http.max_body_size`). */
  maxBodyBytes?: number;
  /** --grpc-port: serve the A2A gRPC binding on this port of `host` (over langgraph.json `a2a.grpc_port`; 0 picks one). */
  grpcPort?: number;
  /**
   * --run-timeout, else $BG_JOB_TIMEOUT_SECS: the run time limit in seconds (0: none). Unset: langgraph.json
   * `run_timeout`, else 3600 (the official server's default).
   */
  runTimeoutSeconds?: number;
  /**
   * --inspector / --no-inspector: serve the /inspector page or not. Unset: langgraph.json `http.inspector`,
   * else on in dev and off in serve.
   */
  inspector?: boolean;
}

/** `new <dir>`, `dockerfile`, `compose`: what to write where. */
export interface ScaffoldOptions {
  command: ScaffoldCommand;
  /** new: the folder to create the project in, as given. */
  dir?: string;
  /** dockerfile/compose: langgraph.json of the project, whose folder is the image's build context. */
  config: string;
  /** dockerfile/compose: -o/--out, as given (unset: Dockerfile / compose.yaml beside langgraph.json). */
  out?: string;
  /** dockerfile/compose: overwrite files that exist. */
  force: boolean;
}

export type Parsed =
  { kind: "help" } | { kind: "version" } | { kind: "run"; options: CliOptions } | { kind: "scaffold"; options: ScaffoldOptions };

export { USAGE } from "./usage.js";

/** A command-line mistake: main prints it with the usage and exits 2. */
export class UsageError extends Error {}

/** A bad environment variable: main prints this one line (the command line was fine) and exits 2. */
export class EnvironmentError extends UsageError {}

const OPTIONS = {
  config: { type: "string", short: "c" },
  host: { type: "string", short: "h" },
  port: { type: "string", short: "p" },
  "grpc-port": { type: "string" },
  storage: { type: "string" },
  "database-url": { type: "string" },
  "database-schema": { type: "string" },
  "database-wait": { type: "string" },
  "data-dir": { type: "string" },
  workers: { type: "string" },
  "n-jobs-per-worker": { type: "string", short: "n" },
  "log-format": { type: "string" },
  "poll-interval": { type: "string" },
  "grace-period": { type: "string" },
  "drain-timeout": { type: "string" },
  "max-body-size": { type: "string" },
  "run-timeout": { type: "string" },
  "no-reload": { type: "boolean" },
  inspector: { type: "boolean" },
  "no-inspector": { type: "boolean" },
  snapshot: { type: "string" },
  "snapshot-save": { type: "boolean" },
  force: { type: "boolean" },
  out: { type: "string", short: "o" },
  in: { type: "string" },
  decrypt: { type: "boolean" },
  // `langgraphjs dev` flags: --no-browser is accepted (we never open one), --tunnel is refused.
  "no-browser": { type: "boolean" },
  tunnel: { type: "boolean" },
  help: { type: "boolean" },
  version: { type: "boolean", short: "v" },
} as const;

/**
 * The engine's `MAX_RUN_TIMEOUT_SECONDS` (Node's timers cannot wait longer), written out: the CLI parses
 * its flags before it loads the engine, so that `--help` and usage errors stay instant.
 */
const MAX_RUN_TIMEOUT_SECONDS = 2_147_483;

/** How long start-up waits for an unreachable PostgreSQL: a database started beside the server is up by then. */
const DEFAULT_DATABASE_WAIT_SECONDS = 60;

const COMMANDS: readonly Command[] = ["dev", "serve", "migrate", "snapshot", "import-dev", "store", "keys"];
const SCAFFOLD_COMMANDS: readonly ScaffoldCommand[] = ["new", "dockerfile", "compose"];

/** Parses argv (without node and the script); throws UsageError on anything it does not understand. */
export function parseCli(argv: string[], env: NodeJS.ProcessEnv = process.env): Parsed {
  // -h is --host, as on `langgraphjs dev`; alone it can only be a request for help.
  if (argv.length === 1 && argv[0] === "-h") return { kind: "help" };
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    // node's messages are precise ("Unknown option '--prot'"); keep them, without node's error code.
    throw new UsageError((error as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help) return { kind: "help" };
  if (values.version) return { kind: "version" };
  if (positionals.length === 0) throw new UsageError("missing command");
  if (SCAFFOLD_COMMANDS.includes(positionals[0] as ScaffoldCommand)) {
    return { kind: "scaffold", options: scaffoldOptions(positionals[0] as ScaffoldCommand, positionals, values) };
  }
  const command = positionals[0] as Command;
  if (!COMMANDS.includes(command)) throw new UsageError(`unknown command '${positionals[0]}'`);
  const maxPositionals = command === "snapshot" || command === "import-dev" || command === "store" || command === "keys" ? 2 : 1;
  if (command === "keys" && positionals[1] !== "rotate") throw new UsageError("keys needs an action: keys rotate");
  if (command === "keys" && values.storage === "memory") throw new UsageError("keys rotate with --storage memory has nothing to re-seal");
  if (command === "store" && positionals[1] !== "reindex") throw new UsageError("store needs an action: store reindex");
  if (command === "store" && values.storage === "memory")
    throw new UsageError("store reindex with --storage memory would keep nothing: the memory storage starts empty");
  if (positionals.length > maxPositionals) throw new UsageError(`unexpected argument '${positionals[maxPositionals]}'`);
  if (values.tunnel) {
    throw new UsageError(
      "--tunnel is not supported: agent-server opens no Cloudflare tunnel; expose the port with a tunnel or proxy of your own",
    );
  }
  if (values.workers !== undefined && values["n-jobs-per-worker"] !== undefined) {
    throw new UsageError("--workers and --n-jobs-per-worker (-n) are the same setting: give one of them");
  }
  if (values.force) throw new UsageError("--force is for dockerfile and compose");

  const production = command === "serve";
  const storageModule = values.storage !== undefined && isModuleSpec(values.storage) ? values.storage : undefined;
  const storage: StorageKind = storageModule !== undefined ? "custom" : storageKind(values.storage ?? "sqlite");
  const options: CliOptions = {
    command,
    argv,
    config: values.config === undefined ? "langgraph.json" : configFile(values.config),
    configGiven: values.config !== undefined,
    host: values.host ?? (production ? "0.0.0.0" : "127.0.0.1"),
    // serve: --port, else $PORT (the official container's variable), else 8123. dev ignores $PORT, which
    // other tools set in development shells: its port stays 2024 unless --port says otherwise.
    port:
      values.port !== undefined || !production
        ? integer("--port", values.port, production ? 8123 : 2024, 0, 65535)
        : envInteger("PORT", env.PORT, 8123, 0, 65535),
    storage,
    storageGiven: values.storage !== undefined,
    storageModule,
    // --database-url, else the first variable set of POSTGRES_URL (ours), DATABASE_URI, POSTGRES_URI (the
    // official container's, in its own order). Checked below, once --storage postgres says it is used.
    databaseUrl: values["database-url"] ?? databaseUrlFromEnv(env)?.url,
    databaseSchema: values["database-schema"] ?? "public",
    databaseWaitSeconds:
      values["database-wait"] !== undefined
        ? integer("--database-wait", values["database-wait"], DEFAULT_DATABASE_WAIT_SECONDS, 0, 3600)
        : envInteger("AGENT_SERVER_DATABASE_WAIT", env.AGENT_SERVER_DATABASE_WAIT, DEFAULT_DATABASE_WAIT_SECONDS, 0, 3600),
    dataDir: values["data-dir"],
    // --n-jobs-per-worker (-n) or --workers, else $N_JOBS_PER_WORKER (the official container's), else 10.
    workers:
      values["n-jobs-per-worker"] !== undefined
        ? integer("--n-jobs-per-worker", values["n-jobs-per-worker"], 10, 1, 1000)
        : values.workers !== undefined
          ? integer("--workers", values.workers, 10, 1, 1000)
          : envInteger("N_JOBS_PER_WORKER", env.N_JOBS_PER_WORKER, 10, 1, 1000),
    pollMs: values["poll-interval"] === undefined ? undefined : integer("--poll-interval", values["poll-interval"], 0, 10, 3_600_000),
    logFormat: oneOf("--log-format", values["log-format"] ?? (production ? "json" : "pretty"), ["pretty", "json"] as const),
    graceMs: integer("--grace-period", values["grace-period"], 10, 0, 3600) * 1000,
    drainMs: integer("--drain-timeout", values["drain-timeout"], 5, 0, 3600) * 1000,
    reload: command === "dev" && !values["no-reload"],
    snapshotSave: values["snapshot-save"] === true,
    maxBodyBytes:
      values["max-body-size"] === undefined
        ? undefined
        : integer("--max-body-size", values["max-body-size"], 0, 1, Number.MAX_SAFE_INTEGER),
    grpcPort: values["grpc-port"] === undefined ? undefined : integer("--grpc-port", values["grpc-port"], 0, 0, 65535),
    runTimeoutSeconds:
      values["run-timeout"] !== undefined
        ? integer("--run-timeout", values["run-timeout"], 0, 0, MAX_RUN_TIMEOUT_SECONDS)
        : env.BG_JOB_TIMEOUT_SECS
          ? envInteger("BG_JOB_TIMEOUT_SECS", env.BG_JOB_TIMEOUT_SECS, 0, 0, MAX_RUN_TIMEOUT_SECONDS)
          : undefined,
  };
  if (values.inspector && values["no-inspector"]) throw new UsageError("--inspector and --no-inspector contradict each other: give one");
  if (values.inspector || values["no-inspector"]) {
    if (command !== "dev" && command !== "serve") throw new UsageError("--inspector and --no-inspector are for dev and serve");
    options.inspector = values.inspector === true;
  }
  snapshotOptions(options, positionals, values);
  if (command !== "dev" && values["no-reload"]) throw new UsageError("--no-reload is for dev (serve and migrate never reload)");
  if (command !== "dev" && command !== "serve" && values["grpc-port"] !== undefined)
    throw new UsageError("--grpc-port is for dev and serve");
  if (
    storage !== "postgres" &&
    (values["database-url"] !== undefined || values["database-schema"] !== undefined || values["database-wait"] !== undefined)
  ) {
    throw new UsageError("--database-url, --database-schema and --database-wait need --storage postgres");
  }
  if (storage === "postgres" && values["database-url"] === undefined) checkDatabaseUrlFromEnv(env);
  if (storage !== "sqlite" && storage !== "custom" && values["data-dir"] !== undefined) {
    throw new UsageError("--data-dir is for --storage sqlite or a custom driver");
  }
  return { kind: "run", options };
}

/** The snapshot commands and flags: which command takes which, and what each needs. */
function snapshotOptions(
  options: CliOptions,
  positionals: string[],
  values: { snapshot?: string; "snapshot-save"?: boolean; out?: string; in?: string; decrypt?: boolean },
): void {
  const { command } = options;
  if (values.decrypt && !(command === "snapshot" && positionals[1] === "export")) {
    throw new UsageError("--decrypt is for snapshot export (a plaintext snapshot although LANGGRAPH_AES_KEY is set)");
  }
  if (values.decrypt) options.snapshotDecrypt = true;
  if (command === "snapshot") {
    const action = positionals[1];
    if (action !== "export" && action !== "import")
      throw new UsageError("snapshot needs an action: snapshot export --out <file> | snapshot import --in <file>");
    options.snapshotAction = action;
    const flag = action === "export" ? "--out" : "--in";
    options.snapshotFile = action === "export" ? values.out : values.in;
    if (!options.snapshotFile) throw new UsageError(`snapshot ${action} needs ${flag} <file>`);
    if ((action === "export" ? values.in : values.out) !== undefined) {
      throw new UsageError(`snapshot ${action} takes ${flag}, not ${action === "export" ? "--in" : "--out"}`);
    }
  } else if (values.out !== undefined || values.in !== undefined) {
    throw new UsageError("--out and --in are for snapshot export and snapshot import (and --out for dockerfile and compose)");
  }
  if (command === "import-dev") options.devDir = positionals[1] ?? ".langgraph_api";
  if (command === "snapshot" || command === "import-dev") {
    if (options.storage === "memory") {
      throw new UsageError(`${command} with --storage memory would keep nothing; use dev/serve --storage memory --snapshot <file>`);
    }
  }
  if (values.snapshot !== undefined || values["snapshot-save"]) {
    if (command !== "dev" && command !== "serve") throw new UsageError("--snapshot and --snapshot-save are for dev and serve");
    if (options.storage !== "memory") throw new UsageError("--snapshot is for --storage memory (use `snapshot import` for other storages)");
    if (values.snapshot === undefined) throw new UsageError("--snapshot-save needs --snapshot <file>");
    options.snapshot = values.snapshot;
  }
}

/**
 * `new <dir>` takes its folder and nothing else; `dockerfile` and `compose` take --config, -o/--out and
 * --force. Any other flag is refused rather than ignored: it would suggest the written files honour it.
 */
function scaffoldOptions(command: ScaffoldCommand, positionals: string[], values: Record<string, unknown>): ScaffoldOptions {
  const accepted = command === "new" ? [] : ["config", "out", "force"];
  const refused = Object.keys(values).find((key) => values[key] !== undefined && !accepted.includes(key));
  if (refused !== undefined) throw new UsageError(`--${refused} is not an option of ${command}`);
  const maxPositionals = command === "new" ? 2 : 1;
  if (positionals.length > maxPositionals) throw new UsageError(`unexpected argument '${positionals[maxPositionals]}'`);
  if (command === "new" && positionals[1] === undefined) throw new UsageError("new needs a folder: agent-server new <dir>");
  const config = values.config as string | undefined;
  return {
    command,
    dir: positionals[1],
    config: config === undefined ? "langgraph.json" : configFile(config),
    out: values.out as string | undefined,
    force: values.force === true,
  };
}

/** The PostgreSQL URL variables, in the order they are read: ours, then the official container's. */
const DATABASE_URL_VARIABLES = ["POSTGRES_URL", "DATABASE_URI", "POSTGRES_URI"] as const;

/** The first of DATABASE_URL_VARIABLES that is set (an empty value counts as unset), with its name. */
function databaseUrlFromEnv(env: NodeJS.ProcessEnv): { name: string; url: string } | undefined {
  const name = DATABASE_URL_VARIABLES.find((variable) => env[variable]);
  return name === undefined ? undefined : { name, url: env[name]! };
}

/**
 * A URL from the environment must be a postgres:// (or postgresql://) URL; anything else would reach the
 * driver and fail there with a message that does not say where the value came from. The value itself is
 * not repeated: it may hold a password.
 */
function checkDatabaseUrlFromEnv(env: NodeJS.ProcessEnv): void {
  const found = databaseUrlFromEnv(env);
  if (found === undefined) return;
  let protocol: string | undefined;
  try {
    protocol = new URL(found.url).protocol;
  } catch {
    // Not a URL at all: reported below.
  }
  if (protocol !== "postgres:" && protocol !== "postgresql:") {
    throw new EnvironmentError(`the ${found.name} environment variable must be a postgres:// URL`);
  }
}

/** integer() for an environment variable: the error names the variable and is an EnvironmentError. */
function envInteger(name: string, raw: string | undefined, fallback: number, min: number, max: number): number {
  try {
    return integer(`the ${name} environment variable`, raw || undefined, fallback, min, max);
  } catch (error) {
    throw new EnvironmentError((error as Error).message);
  }
}

/**
 * `--config` as `langgraphjs dev` takes it: a file, a folder holding langgraph.json, or a file:// URL.
 * A path that does not exist is kept as given: starting reports it as a missing config file.
 */
function configFile(value: string): string {
  const path = value.startsWith("file://") ? fileURLToPath(value) : value;
  try {
    if (statSync(resolve(path)).isDirectory()) return join(path, "langgraph.json");
  } catch {
    // Not there: reported later, with the path.
  }
  return path;
}

/**
 * A driver module rather than a built-in kind: a path ("./driver.ts", "/abs/driver.js"), a package
 * ("@acme/driver"), or any of them with ":export".
 */
function isModuleSpec(value: string): boolean {
  return value.includes("/") || value.includes(":") || /\.(m|c)?[jt]s$/.test(value);
}

function storageKind(value: string): StorageKind {
  const kinds = ["sqlite", "memory", "postgres"];
  if (!kinds.includes(value)) {
    throw new UsageError(`--storage must be one of ${kinds.join(", ")}, or a driver module such as ./driver.ts:storage (got '${value}')`);
  }
  return value as StorageKind;
}

function oneOf<T extends string>(flag: string, value: string, allowed: readonly T[]): T {
  if (!(allowed as readonly string[]).includes(value)) {
    throw new UsageError(`${flag} must be one of ${allowed.join(", ")} (got '${value}')`);
  }
  return value as T;
}

function integer(flag: string, raw: string | undefined, fallback: number, min: number, max: number): number {
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || value < min || value > max) {
    throw new UsageError(`${flag} must be an integer from ${min} to ${max} (got '${raw}')`);
  }
  return value;
}
