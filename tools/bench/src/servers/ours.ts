import { join } from "node:path";
import { BIN, EXAMPLE_CONFIG, REPO_ROOT } from "@agent-server/server/testing";
import { startProcess } from "../processes.js";
import type { RunningServer } from "./running-server.js";

export type OurStorage = "memory" | "sqlite" | "postgres";

/** The key of the sealed rows: 32 bytes, AES-256 (what an operator would choose). */
const BENCH_KEY = "bench-key-0123456789abcdef012345";

export interface OurServerOptions {
  storage: OurStorage;
  /** SQLite: the folder of the database file. */
  dataDir?: string;
  /** PostgreSQL: the server and the schema (created and migrated at start-up when new). */
  databaseUrl?: string;
  databaseSchema?: string;
  /** False: answer as soon as the server listens, its schema extraction perhaps still running (default: wait). */
  waitForSchemas?: boolean;
  /** Another checkout's CLI entry and example project (a baseline of an earlier version): default this one's. */
  checkout?: string;
  /** With LANGGRAPH_AES_KEY: everything users send sealed at rest (docs/security.md). */
  sealed?: boolean;
  /** More flags for `serve`, and environment variables (tracing, metrics). */
  args?: string[];
  /** Flags for Node itself, before the CLI entry (`--cpu-prof`: not allowed in NODE_OPTIONS). */
  nodeArgs?: string[];
  env?: Record<string, string>;
}

/**
 * One `agent-server serve` process as a user runs it (bin → tsx → src/main.ts) on the example project,
 * whose `echo` graph is the one every peer runs. Default workers (10, as `langgraphjs dev`), JSON logs.
 */
export async function startOurServer(options: OurServerOptions): Promise<RunningServer> {
  const bin = options.checkout ? join(options.checkout, "apps/server/bin/agent-server.mjs") : BIN;
  const config = options.checkout ? join(options.checkout, "examples/langgraph.json") : EXAMPLE_CONFIG;
  const args = [
    ...(options.nodeArgs ?? []),
    bin,
    "serve",
    "--config",
    config,
    "--host",
    "127.0.0.1",
    "--port",
    "0",
    "--storage",
    options.storage,
    ...(options.args ?? []),
  ];
  if (options.storage === "sqlite") args.push("--data-dir", required(options.dataDir, "dataDir"));
  if (options.storage === "postgres") {
    args.push("--database-url", required(options.databaseUrl, "databaseUrl"));
    args.push("--database-schema", required(options.databaseSchema, "databaseSchema"));
  }
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NO_COLOR: "1",
    ...(options.sealed ? { LANGGRAPH_AES_KEY: BENCH_KEY } : {}),
    ...options.env,
  };
  // The command line alone says which database it uses.
  delete env.POSTGRES_URL;
  delete env.POSTGRES_URI;
  const server = startProcess(process.execPath, args, { cwd: options.checkout ?? REPO_ROOT, env });
  try {
    const [, url] = await server.waitFor(/listening on (http:\/\/[^\s"]+)/);
    const base = url!.replace(/\/$/, "");
    if (options.waitForSchemas !== false) await schemasExtracted(base);
    return {
      name:
        options.sealed && options.storage !== "memory"
          ? (`ours (${options.storage}, sealed)` as const)
          : (`ours (${options.storage})` as const),
      url: base,
      a2aUrl: `${base}/a2a/echo/`,
      pid: server.pid,
      output: server.output,
      stop: server.stop,
    };
  } catch (error) {
    await server.stop();
    throw error;
  }
}

/**
 * Waits for the work a server starts with: the graphs' schemas, read from their TypeScript source in a
 * worker thread (seconds of CPU on a cold schema cache, as in a fresh SQLite data dir), which would
 * otherwise share the cores with the first scenarios. `/schemas` answers once that extraction is done.
 */
export async function schemasExtracted(base: string): Promise<void> {
  const search = await fetch(`${base}/assistants/search`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ limit: 100 }),
  });
  if (!search.ok) throw new Error(`assistants/search answered ${search.status}`);
  for (const { assistant_id } of (await search.json()) as { assistant_id: string }[]) {
    const schemas = await fetch(`${base}/assistants/${assistant_id}/schemas`);
    if (!schemas.ok) throw new Error(`assistants/${assistant_id}/schemas answered ${schemas.status}`);
  }
}

function required(value: string | undefined, name: string): string {
  if (value === undefined) throw new Error(`startOurServer: ${name} is required for this storage`);
  return value;
}
