/**
 * Long threads (issue 29): 1,000 turns in one A2A context and on one SDK thread, on SQLite and PostgreSQL,
 * against the in-process floor (the echo graph with the same saver), and storage per turn with and without
 * `checkpointer.ttl` `keep_latest`.
 *
 *   npx tsx tools/bench/investigations/long-thread.ts [--turns 1000] [--driver sqlite|postgres|all] [--api a2a|sdk|floor|all]
 *        [--ttl off|keep_latest|all] [--window 10] [--cpu-prof <dir>] [--json <file>] [--out <file.md>]
 *
 * Ours is a real `agent-server serve` process on the example project (graph `echo`, MessagesAnnotation: two
 * messages a turn), SQLite on a file in a temp folder, PostgreSQL on $POSTGRES_URL else an embedded server
 * (a schema per server). Per turn: A2A `SendMessage` (official @a2a-js/sdk client, blocking) with the first
 * task's `contextId`, or SDK `runs.wait(thread, "echo", { input })` on one thread. The floor is the same
 * graph compiled in this process with the saver our driver uses on that database (`SqliteSaver` on a file;
 * `RunAwarePostgresSaver`, LangGraph's `PostgresSaver` with unique versions, in a schema of its own),
 * `graph.invoke({ messages }, { configurable: { thread_id } })` on one thread.
 *
 * A window of `--window` sends around each mark (turns 10, 100, `--turns`; the last window ends at the last
 * turn) gives p50/p90; our share = ours − floor; the target: share at the last mark ≤ 1.5× share at turn 10.
 * At each mark: GetTask of the first task / threads.get + runs.get of the first run (median of 5), and the
 * database's size (SQLite: the file + WAL; PostgreSQL: the schema's relations, pg_total_relation_size).
 * With `--ttl keep_latest` the server runs a langgraph.json with `checkpointer.ttl` { strategy: keep_latest,
 * default_ttl: 0.005 min, sweep_interval_minutes: 0.005 } and the bench pauses 1.2 s every 100 turns and at
 * each mark (the thread's TTL clock restarts at every run, so a sweep only trims an idle thread).
 *
 * `--cpu-prof <dir>` starts each server with `node --cpu-prof --cpu-prof-dir <dir>/<driver>-<api>-<ttl>`;
 * the profile is written when the server exits (SIGTERM, drained), which the bench waits for.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { parseArgs } from "node:util";
import { execSync } from "node:child_process";
import { SendMessageRequest, TaskState, type Task } from "@a2a-js/sdk";
import { ClientFactory } from "@a2a-js/sdk/client";
import { Client } from "@langchain/langgraph-sdk";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { RunAwarePostgresSaver } from "@agent-server/storage-postgres";
import pg from "pg";
import { BIN, EXAMPLE_CONFIG, REPO_ROOT } from "@agent-server/server/testing";
import { graph } from "../../../examples/src/echo.js";
import { openBenchPostgres, type BenchPostgres } from "../src/postgres.js";
import { cleanUp, killAllNow, onCleanUp, sleep, startProcess, type ServerProcess } from "../src/processes.js";

type Driver = "sqlite" | "postgres";
type Api = "a2a" | "sdk";
type Ttl = "off" | "keep_latest";

const { values: args } = parseArgs({
  options: {
    turns: { type: "string", default: "1000" },
    driver: { type: "string", default: "all" },
    api: { type: "string", default: "all" },
    ttl: { type: "string", default: "all" },
    window: { type: "string", default: "10" },
    "warm-up": { type: "string", default: "20" },
    "cpu-prof": { type: "string" },
    json: { type: "string" },
    out: { type: "string" },
  },
});
const TURNS = Number(args.turns);
const WINDOW = Number(args.window);
const WARM_UP = Number(args["warm-up"]);
const DRIVERS: Driver[] = args.driver === "all" ? ["sqlite", "postgres"] : [args.driver as Driver];
/** `--api floor`: the floors alone (profile the bench process itself to see the floor's own time). */
const APIS: Api[] = args.api === "all" ? ["a2a", "sdk"] : args.api === "floor" ? [] : [args.api as Api];
const TTLS: Ttl[] = args.ttl === "all" ? ["off", "keep_latest"] : [args.ttl as Ttl];
if (!(TURNS >= WINDOW && WINDOW >= 2)) throw new Error("--turns must be at least --window, which must be at least 2");
for (const d of DRIVERS) if (d !== "sqlite" && d !== "postgres") throw new Error(`--driver: sqlite|postgres|all, not ${d}`);
for (const a of APIS) if (a !== "a2a" && a !== "sdk") throw new Error(`--api: a2a|sdk|floor|all, not ${a}`);
for (const t of TTLS) if (t !== "off" && t !== "keep_latest") throw new Error(`--ttl: off|keep_latest|all, not ${t}`);

/** The marks: turn 10, 100 and the last turn (1,000 by default). */
const MARKS = [...new Set([10, 100, TURNS].filter((mark) => mark <= TURNS))];
/** The TTL config of the keep_latest servers, in minutes: 0.3 s, swept every 0.3 s. */
const TTL_MINUTES = 0.005;
const TTL_PAUSE_MS = 1_200;
const TTL_PAUSE_EVERY = 100;
const READ_REPEATS = 5;

/** The window of sends whose latencies stand for `mark`: centred on it (6–15 for 10), the last one ending at the last turn. */
function windowOf(mark: number): [number, number] {
  const first = Math.max(1, Math.min(mark - Math.floor(WINDOW / 2) + 1, TURNS - WINDOW + 1));
  return [first, first + WINDOW - 1];
}

/** Linear-interpolated quantile. */
function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const pos = (sorted.length - 1) * q;
  const lower = Math.floor(pos);
  const upper = Math.min(sorted.length - 1, lower + 1);
  return sorted[lower]! + (sorted[upper]! - sorted[lower]!) * (pos - lower);
}

interface MarkFigures {
  mark: number;
  window: [number, number];
  p50: number;
  p90: number;
  /** Bytes the database holds at the mark, minus those before the first measured turn (SQLite: pages in use). */
  bytes: number;
  /** Bytes on disk at the mark, minus those before the first measured turn (SQLite: file + WAL). */
  disk: number;
  /** Median of READ_REPEATS (ms): A2A GetTask of the first task, SDK threads.get and runs.get. */
  reads: Record<string, number>;
  /** keep_latest: checkpoints of the thread's root namespace left after the pause (read with getHistory, limit 3). */
  checkpointsKept?: number;
}

interface Bytes {
  used: number;
  disk: number;
}

interface Series {
  driver: Driver;
  api: Api | "floor";
  ttl: Ttl;
  /** ms per send, index 0 = turn 1. */
  sends: number[];
  /**
   * When each send began, in µs of CLOCK_MONOTONIC (process.hrtime): the clock of the timestamps in a V8
   * `.cpuprofile` (startTime, timeDeltas), so a server profile can be cut to the samples of turns a..b.
   */
  sendStartsUs: number[];
  marks: MarkFigures[];
  seconds: number;
}

/** One turn: resolves once the reply is there, the check of it outside the timing. */
type Turn = (turn: number) => Promise<() => void>;

interface Subject {
  /** A throwaway conversation first (JIT, connection pools, prepared statements), then the measured one. */
  warmUp(): Promise<void>;
  turn: Turn;
  /** Timed reads at a mark (ms), named. */
  reads(): Promise<Record<string, number>>;
  /** Bytes of the database: in use, and on disk. */
  bytes(): Promise<Bytes>;
  checkpointsKept?(): Promise<number>;
  /** Whatever must happen at a mark or every TTL_PAUSE_EVERY turns before measuring storage. */
  pause?(): Promise<void>;
  close(): Promise<void>;
}

const text = (turn: number) => `turn ${turn}`;
const echoOf = (turn: number) => `echo: ${text(turn)}`;

function lastMessageIs(values: unknown, expected: string): void {
  const last = (values as { messages?: { content?: unknown; text?: unknown }[] } | null)?.messages?.at(-1);
  const content = typeof last?.content === "string" ? last.content : undefined;
  if (content !== expected) throw new Error(`unexpected result, wanted "${expected}": ${JSON.stringify(values).slice(-500)}`);
}

async function median(fn: () => Promise<unknown>): Promise<number> {
  const samples: number[] = [];
  for (let i = 0; i < READ_REPEATS; i++) {
    const started = performance.now();
    await fn();
    samples.push(performance.now() - started);
  }
  return quantile(samples, 0.5);
}

/**
 * SQLite: the bytes the database holds, page_size × (page_count − freelist_count) as a reader sees it (WAL
 * frames included, pages freed by a prune not counted), over a connection of its own that only reads
 * pragmas. The file + WAL on disk is a high-water mark (a freed page is reused, not returned) and the WAL
 * comes and goes with checkpoints; `filesBytes` gives that one.
 */
function sqliteUsedBytes(file: string): number {
  // SqliteSaver.fromConnString opens better-sqlite3 and creates nothing until first used; only its handle is used.
  const db = SqliteSaver.fromConnString(file).db;
  try {
    const pageSize = db.pragma("page_size", { simple: true }) as number;
    const pages = db.pragma("page_count", { simple: true }) as number;
    const free = db.pragma("freelist_count", { simple: true }) as number;
    return pageSize * (pages - free);
  } finally {
    db.close();
  }
}

function sqliteFile(dir: string): string {
  const name = (readdirSync(dir) as string[]).find((n) => n.endsWith(".sqlite") || n.endsWith(".db"));
  if (!name) throw new Error(`no SQLite database in ${dir}: ${readdirSync(dir).join(", ")}`);
  return join(dir, name);
}

function filesBytes(dir: string): number {
  let total = 0;
  for (const name of readdirSync(dir, { recursive: true }) as string[]) {
    if (name.endsWith("-shm")) continue;
    const stat = statSync(join(dir, name));
    if (stat.isFile()) total += stat.size;
  }
  return total;
}

async function schemaBytes(url: string, schema: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ bytes: string }>(
      `SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0)::bigint AS bytes
         FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = $1 AND c.relkind IN ('r', 'm')`,
      [schema],
    );
    return Number(rows[0]!.bytes);
  } finally {
    await client.end();
  }
}

// ---------------------------------------------------------------------------------------------------------
// The floor

async function openFloor(driver: Driver, postgres: BenchPostgres | undefined): Promise<Subject> {
  let invoke: (threadId: string, turn: number) => Promise<unknown>;
  let bytes: () => Promise<Bytes>;
  let close: () => Promise<void>;
  if (driver === "sqlite") {
    const dir = mkdtempSync(join(tmpdir(), "bench-long-floor-"));
    const saver = SqliteSaver.fromConnString(join(dir, "floor.sqlite"));
    const echo = graph.builder.compile({ checkpointer: saver });
    invoke = (thread_id, turn) => echo.invoke({ messages: [{ role: "user", content: text(turn) }] }, { configurable: { thread_id } });
    bytes = async () => ({ used: sqliteUsedBytes(join(dir, "floor.sqlite")), disk: filesBytes(dir) });
    // An interrupted run removes the file too (it reaches hundreds of MB at 1,000 turns).
    const removeDir = onCleanUp(async () => rmSync(dir, { recursive: true, force: true }));
    close = async () => {
      saver.db.close();
      removeDir();
      rmSync(dir, { recursive: true, force: true });
    };
  } else {
    const schema = postgres!.newSchema("bench_long_floor");
    const pool = new pg.Pool({ connectionString: postgres!.url });
    pool.on("error", () => undefined);
    await pool.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
    const saver = new RunAwarePostgresSaver(pool, schema);
    await saver.setup();
    const echo = graph.builder.compile({ checkpointer: saver });
    invoke = (thread_id, turn) => echo.invoke({ messages: [{ role: "user", content: text(turn) }] }, { configurable: { thread_id } });
    bytes = async () => {
      const size = await schemaBytes(postgres!.url, schema);
      return { used: size, disk: size };
    };
    close = () => pool.end();
  }
  const thread = crypto.randomUUID();
  return {
    async warmUp() {
      const scratch = crypto.randomUUID();
      for (let turn = 1; turn <= WARM_UP; turn++) lastMessageIs(await invoke(scratch, turn), echoOf(turn));
    },
    async turn(turn) {
      const values = await invoke(thread, turn);
      return () => lastMessageIs(values, echoOf(turn));
    },
    reads: async () => ({}),
    bytes,
    close,
  };
}

// ---------------------------------------------------------------------------------------------------------
// Ours

interface OurServer {
  url: string;
  process: ServerProcess;
  bytes(): Promise<Bytes>;
  stop(): Promise<void>;
}

async function startServer(driver: Driver, api: Api, ttl: Ttl, postgres: BenchPostgres | undefined): Promise<OurServer> {
  const scratch = mkdtempSync(join(tmpdir(), "bench-long-"));
  let config = EXAMPLE_CONFIG;
  if (ttl === "keep_latest") {
    // The example project with checkpointer.ttl; the graph path relative to this config's folder.
    const echoFile = resolve(dirname(EXAMPLE_CONFIG), "src/echo.ts");
    config = join(scratch, "langgraph.json");
    writeFileSync(
      config,
      JSON.stringify({
        node_version: "20",
        graphs: { echo: `${relative(scratch, echoFile)}:graph` },
        checkpointer: { ttl: { strategy: "keep_latest", default_ttl: TTL_MINUTES, sweep_interval_minutes: TTL_MINUTES } },
      }),
    );
  }
  const nodeFlags: string[] = [];
  if (args["cpu-prof"]) {
    const profDir = resolve(args["cpu-prof"], `${driver}-${api}-${ttl}`);
    mkdirSync(profDir, { recursive: true });
    nodeFlags.push("--cpu-prof", "--cpu-prof-dir", profDir);
  }
  const cli = [...nodeFlags, BIN, "serve", "--config", config, "--host", "127.0.0.1", "--port", "0", "--storage", driver];
  let bytes: () => Promise<Bytes>;
  const dataDir = join(scratch, "data");
  if (driver === "sqlite") {
    mkdirSync(dataDir);
    cli.push("--data-dir", dataDir);
    bytes = async () => ({ used: sqliteUsedBytes(sqliteFile(dataDir)), disk: filesBytes(dataDir) });
  } else {
    const schema = postgres!.newSchema(`bench_long_${api}`);
    cli.push("--database-url", postgres!.url, "--database-schema", schema);
    bytes = async () => {
      const size = await schemaBytes(postgres!.url, schema);
      return { used: size, disk: size };
    };
  }
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: "1" };
  delete env.POSTGRES_URL;
  delete env.POSTGRES_URI;
  const server = startProcess(process.execPath, cli, { cwd: REPO_ROOT, env });
  const removeScratch = onCleanUp(async () => rmSync(scratch, { recursive: true, force: true }));
  const [, url] = await server.waitFor(/listening on (http:\/\/[^\s"]+)/);
  return {
    url: url!.replace(/\/$/, ""),
    process: server,
    bytes,
    async stop() {
      // Drain and exit by itself, so that --cpu-prof writes its profile (which may take a while).
      const exited = new Promise<void>((done) => {
        if (server.child.exitCode !== null || server.child.signalCode !== null) done();
        else server.child.once("exit", () => done());
      });
      server.child.kill("SIGTERM");
      await Promise.race([exited, sleep(120_000)]);
      await server.stop();
      removeScratch();
      rmSync(scratch, { recursive: true, force: true });
    },
  };
}

function a2aText(task: Task): string {
  return JSON.stringify(task);
}

async function openOurs(driver: Driver, api: Api, ttl: Ttl, postgres: BenchPostgres | undefined): Promise<Subject> {
  const server = await startServer(driver, api, ttl, postgres);
  const sdk = new Client({ apiUrl: server.url });
  const pause = ttl === "keep_latest" ? () => sleep(TTL_PAUSE_MS) : undefined;
  const checkpointsKept = async (threadId: string) => (await sdk.threads.getHistory(threadId, { limit: 3 })).length;
  try {
    if (api === "a2a") {
      const a2a = await new ClientFactory().createFromUrl(`${server.url}/a2a/echo/`);
      const send = async (contextId: string | undefined, turn: number) => {
        const task = (await a2a.sendMessage(
          SendMessageRequest.fromJSON({
            message: {
              role: "ROLE_USER",
              messageId: crypto.randomUUID(),
              ...(contextId ? { contextId } : {}),
              parts: [{ text: text(turn) }],
            },
          }),
        )) as Task;
        return task;
      };
      const check = (task: Task, turn: number) => {
        if (task?.status?.state !== TaskState.TASK_STATE_COMPLETED || !a2aText(task).includes(`"${echoOf(turn)}"`)) {
          throw new Error(`unexpected A2A result at turn ${turn}: ${a2aText(task).slice(0, 500)}`);
        }
      };
      let contextId: string | undefined;
      let firstTask: string | undefined;
      return {
        async warmUp() {
          let scratch: string | undefined;
          for (let turn = 1; turn <= WARM_UP; turn++) {
            const task = await send(scratch, turn);
            check(task, turn);
            scratch ??= task.contextId;
          }
        },
        async turn(turn) {
          const task = await send(contextId, turn);
          return () => {
            check(task, turn);
            if (contextId !== undefined && task.contextId !== contextId) throw new Error(`turn ${turn} left the context`);
            contextId ??= task.contextId;
            firstTask ??= task.id;
          };
        },
        reads: async () => ({
          "GetTask(first)": await median(async () => {
            const task = await a2a.getTask({ tenant: "", id: firstTask!, historyLength: undefined });
            if (task.id !== firstTask || task.status?.state !== TaskState.TASK_STATE_COMPLETED) throw new Error("GetTask: wrong task");
          }),
        }),
        bytes: server.bytes,
        checkpointsKept: () => checkpointsKept(contextId!),
        pause,
        close: server.stop,
      };
    }
    const thread = (await sdk.threads.create()).thread_id;
    let firstRun: string | undefined;
    return {
      async warmUp() {
        const scratch = (await sdk.threads.create()).thread_id;
        for (let turn = 1; turn <= WARM_UP; turn++) {
          lastMessageIs(
            await sdk.runs.wait(scratch, "echo", { input: { messages: [{ role: "user", content: text(turn) }] } }),
            echoOf(turn),
          );
        }
      },
      async turn(turn) {
        const values = await sdk.runs.wait(thread, "echo", { input: { messages: [{ role: "user", content: text(turn) }] } });
        return () => lastMessageIs(values, echoOf(turn));
      },
      async reads() {
        firstRun ??= (await sdk.runs.list(thread, { limit: 1000, offset: 0 })).at(-1)!.run_id;
        return {
          "threads.get": await median(() => sdk.threads.get(thread)),
          "runs.get(first)": await median(async () => {
            const run = await sdk.runs.get(thread, firstRun!);
            if (run.status !== "success") throw new Error(`runs.get: ${run.status}`);
          }),
        };
      },
      bytes: server.bytes,
      checkpointsKept: () => checkpointsKept(thread),
      pause,
      close: server.stop,
    };
  } catch (error) {
    await server.stop();
    throw error;
  }
}

// ---------------------------------------------------------------------------------------------------------
// One conversation

async function converse(driver: Driver, api: Api | "floor", ttl: Ttl, subject: Subject): Promise<Series> {
  const started = performance.now();
  const sends: number[] = [];
  const sendStartsUs: number[] = [];
  const marks: MarkFigures[] = [];
  try {
    await subject.warmUp();
    // keep_latest: the warm-up thread is trimmed before the baseline, not in the middle of the measurement.
    await subject.pause?.();
    const baseline = await subject.bytes();
    for (let turn = 1; turn <= TURNS; turn++) {
      sendStartsUs.push(Number(process.hrtime.bigint() / 1000n));
      const begin = performance.now();
      const check = await subject.turn(turn);
      sends.push(performance.now() - begin);
      check();
      // The floor on SQLite never waits for I/O: let the loop turn (signals, timers) between sends.
      await new Promise((done) => setImmediate(done));
      const isMark = MARKS.includes(turn);
      if (subject.pause && (isMark || turn % TTL_PAUSE_EVERY === 0)) await subject.pause();
      if (!isMark) continue;
      const reads = await subject.reads();
      const now = await subject.bytes();
      const bytes = now.used - baseline.used;
      const disk = now.disk - baseline.disk;
      const checkpointsKept = ttl === "keep_latest" ? await subject.checkpointsKept?.() : undefined;
      // The window may end after the mark (6–15 for 10): its latencies are filled in below.
      marks.push({
        mark: turn,
        window: windowOf(turn),
        p50: NaN,
        p90: NaN,
        bytes,
        disk,
        reads,
        ...(checkpointsKept !== undefined ? { checkpointsKept } : {}),
      });
      console.error(
        `${driver}\t${api}\tttl ${ttl}\tturn ${turn}\tlast send ${sends.at(-1)!.toFixed(1)} ms\t${(bytes / 1024).toFixed(0)} KiB` +
          `${Object.entries(reads)
            .map(([name, ms]) => `\t${name} ${ms.toFixed(1)} ms`)
            .join("")}` +
          `${checkpointsKept !== undefined ? `\tcheckpoints kept ${checkpointsKept}` : ""}`,
      );
    }
  } finally {
    await subject.close();
  }
  for (const mark of marks) {
    const window = sends.slice(mark.window[0] - 1, mark.window[1]);
    mark.p50 = quantile(window, 0.5);
    mark.p90 = quantile(window, 0.9);
  }
  return { driver, api, ttl, sends, sendStartsUs, marks, seconds: (performance.now() - started) / 1000 };
}

// ---------------------------------------------------------------------------------------------------------
// Report

const ms = (value: number) => (value >= 100 ? value.toFixed(0) : value >= 10 ? value.toFixed(1) : value.toFixed(2));
const kib = (bytes: number) => (bytes / 1024).toFixed(bytes >= 100 * 1024 ? 0 : 1);

function report(series: Series[], wallSeconds: number): string {
  const lines: string[] = [];
  const commit = execSync("git rev-parse --short=12 HEAD", { cwd: REPO_ROOT }).toString().trim();
  const dirty = execSync("git status --porcelain -- libs apps", { cwd: REPO_ROOT }).toString().trim()
    ? " (with uncommitted changes in libs/apps)"
    : "";
  const last = MARKS.at(-1)!;
  lines.push(
    `\`npx tsx tools/bench/investigations/long-thread.ts --turns ${TURNS}\`, ${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC, ` +
      `commit ${commit}${dirty}, Node ${process.version}, ${wallSeconds.toFixed(0)} s. ` +
      `Window: ${WINDOW} sends around each mark (${MARKS.map((m) => windowOf(m).join("–")).join(", ")}), after ${WARM_UP} warm-up turns on another thread.`,
    "",
  );
  const floorOf = (driver: Driver) => series.find((s) => s.driver === driver && s.api === "floor");
  lines.push("### Per-send latency (ms): ours, the floor, our share", "");
  const head = [
    "driver",
    "api",
    ...MARKS.flatMap((m) => [`ours p50 @${m}`, `floor p50 @${m}`, `share @${m}`]),
    `share @${last} ÷ @10`,
    "target ≤ 1.5×",
  ];
  lines.push(`| ${head.join(" | ")} |`, `| ${head.map(() => "---").join(" | ")} |`);
  for (const s of series.filter((x) => x.api !== "floor" && x.ttl === "off")) {
    const floor = floorOf(s.driver);
    const cells: string[] = [s.driver, s.api];
    const shares: number[] = [];
    for (const mark of MARKS) {
      const ours = s.marks.find((m) => m.mark === mark)!;
      const base = floor?.marks.find((m) => m.mark === mark);
      const share = base ? ours.p50 - base.p50 : NaN;
      shares.push(share);
      cells.push(ms(ours.p50), base ? ms(base.p50) : "–", base ? ms(share) : "–");
    }
    const ratio = shares.at(-1)! / shares[0]!;
    cells.push(Number.isFinite(ratio) ? `${ratio.toFixed(2)}×` : "–", Number.isFinite(ratio) ? (ratio <= 1.5 ? "PASS" : "**FAIL**") : "–");
    lines.push(`| ${cells.join(" | ")} |`);
  }
  lines.push("", "### p90 per send (ms)", "");
  const head90 = ["driver", "api", "ttl", ...MARKS.map((m) => `p90 @${m}`)];
  lines.push(`| ${head90.join(" | ")} |`, `| ${head90.map(() => "---").join(" | ")} |`);
  for (const s of series) lines.push(`| ${[s.driver, s.api, s.ttl, ...s.marks.map((m) => ms(m.p90))].join(" | ")} |`);

  const withReads = series.filter((s) => s.api !== "floor" && s.ttl === "off");
  if (withReads.length) {
    lines.push("", `### Reads at each mark (ms, median of ${READ_REPEATS}): must not grow with the thread`, "");
    const headR = ["driver", "api", "read", ...MARKS.map((m) => `@${m}`), `@${last} ÷ @10`];
    lines.push(`| ${headR.join(" | ")} |`, `| ${headR.map(() => "---").join(" | ")} |`);
    for (const s of withReads) {
      for (const name of Object.keys(s.marks[0]?.reads ?? {})) {
        const values = s.marks.map((m) => m.reads[name]!);
        lines.push(`| ${[s.driver, s.api, name, ...values.map(ms), `${(values.at(-1)! / values[0]!).toFixed(2)}×`].join(" | ")} |`);
      }
    }
  }

  lines.push("", "### Storage (KiB added since the first turn; per turn in brackets)", "");
  lines.push(
    "SQLite: pages in use, page_size × (page_count − freelist_count), and on disk the file + WAL; PostgreSQL: the schema's relations (`pg_total_relation_size`, tables + indexes + TOAST). " +
      `keep_latest: \`checkpointer.ttl\` { strategy: keep_latest, default_ttl: ${TTL_MINUTES}, sweep_interval_minutes: ${TTL_MINUTES} }, ` +
      `${TTL_PAUSE_MS / 1000} s pause every ${TTL_PAUSE_EVERY} turns and at each mark so a sweep trims the idle thread. ` +
      "The increment column is (bytes at the last mark − bytes at the one before) ÷ the turns between them: flat storage per turn means it stays near the per-turn figure at 100.",
    "",
  );
  const headS = [
    "driver",
    "api",
    "ttl",
    ...MARKS.map((m) => `@${m}`),
    `per turn, ${MARKS.at(-2) ?? 0}→${last}`,
    `on disk @${last}`,
    "checkpoints kept @last",
  ];
  lines.push(`| ${headS.join(" | ")} |`, `| ${headS.map(() => "---").join(" | ")} |`);
  for (const s of series) {
    const cells = s.marks.map((m) => `${kib(m.bytes)} (${kib(m.bytes / m.mark)})`);
    const a = s.marks.at(-2);
    const b = s.marks.at(-1)!;
    const increment = a ? (b.bytes - a.bytes) / (b.mark - a.mark) : b.bytes / b.mark;
    lines.push(`| ${[s.driver, s.api, s.ttl, ...cells, kib(increment), kib(b.disk), String(b.checkpointsKept ?? "–")].join(" | ")} |`);
  }
  lines.push("", `Wall time per conversation: ${series.map((s) => `${s.driver}/${s.api}/${s.ttl} ${s.seconds.toFixed(0)} s`).join(", ")}.`);
  return lines.join("\n");
}

// ---------------------------------------------------------------------------------------------------------

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    void cleanUp().finally(() => {
      killAllNow();
      process.exit(130);
    });
  });
}

const began = performance.now();
const series: Series[] = [];
/** Each conversation's figures as soon as it ends, and the JSON so far: a long run stopped halfway keeps what it measured. */
function done(one: Series): void {
  series.push(one);
  console.error(
    `${one.driver}\t${one.api}\tttl ${one.ttl}\tdone in ${one.seconds.toFixed(0)} s\t` +
      one.marks.map((m) => `@${m.mark} p50 ${ms(m.p50)} p90 ${ms(m.p90)} ms, ${kib(m.bytes)} KiB`).join("\t"),
  );
  if (args.json) writeFileSync(args.json, JSON.stringify({ turns: TURNS, window: WINDOW, marks: MARKS, series }, null, 1));
}
try {
  for (const driver of DRIVERS) {
    const postgres = driver === "postgres" ? await openBenchPostgres() : undefined;
    if (TTLS.includes("off")) done(await converse(driver, "floor", "off", await openFloor(driver, postgres)));
    for (const ttl of TTLS) {
      for (const api of APIS) done(await converse(driver, api, ttl, await openOurs(driver, api, ttl, postgres)));
    }
  }
  const markdown = report(series, (performance.now() - began) / 1000);
  console.log(markdown);
  if (args.out) writeFileSync(args.out, `${markdown}\n`);
} finally {
  await cleanUp();
}
