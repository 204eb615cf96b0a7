import { BIN, EXAMPLE_CONFIG, REPO_ROOT } from "../../../../apps/server/src/testing/cli-process.js";
import { startProcess } from "../processes.js";
import type { RunningServer } from "./running-server.js";

export type OurStorage = "memory" | "sqlite" | "postgres";

export interface OurServerOptions {
  storage: OurStorage;
  /** SQLite: the folder of the database file. */
  dataDir?: string;
  /** PostgreSQL: the server and the schema (created and migrated at start-up when new). */
  databaseUrl?: string;
  databaseSchema?: string;
}

/**
 * One `agent-server serve` process as a user runs it (bin → tsx → src/main.ts) on the example project,
 * whose `echo` graph is the one every peer runs. Default workers (10, as `langgraphjs dev`), JSON logs.
 */
export async function startOurServer(options: OurServerOptions): Promise<RunningServer> {
  const args = [BIN, "serve", "--config", EXAMPLE_CONFIG, "--host", "127.0.0.1", "--port", "0", "--storage", options.storage];
  if (options.storage === "sqlite") args.push("--data-dir", required(options.dataDir, "dataDir"));
  if (options.storage === "postgres") {
    args.push("--database-url", required(options.databaseUrl, "databaseUrl"));
    args.push("--database-schema", required(options.databaseSchema, "databaseSchema"));
  }
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: "1" };
  // The command line alone says which database it uses.
  delete env.POSTGRES_URL;
  delete env.POSTGRES_URI;
  const server = startProcess(process.execPath, args, { cwd: REPO_ROOT, env });
  try {
    const [, url] = await server.waitFor(/listening on (http:\/\/[^\s"]+)/);
    const base = url!.replace(/\/$/, "");
    return {
      name: `ours (${options.storage})` as const,
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

function required(value: string | undefined, name: string): string {
  if (value === undefined) throw new Error(`startOurServer: ${name} is required for this storage`);
  return value;
}
