import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { openSqliteStorage } from "@agent-server/storage-sqlite";
import { Client } from "@langchain/langgraph-sdk";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { parseCli, UsageError } from "../cli/index.js";
import { EXAMPLE_CONFIG, jsonLines, killAll, runCli, startCli, memoryDevArgs } from "../../test/support/cli-process.js";
import { populate, type Scenario } from "../../test/support/snapshot-scenario.js";

let dir: string;
let sourceDir: string;
let scenario: Scenario;
let snapshot: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "agent-server-snapshot-cli-"));
  sourceDir = join(dir, "source");
  const storage = await openSqliteStorage({ path: join(sourceDir, "agent-server.sqlite") });
  try {
    scenario = await populate(storage);
  } finally {
    await storage.close();
  }
  snapshot = join(dir, "store.jsonl");
});
afterEach(killAll);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("agent-server snapshot export / import", () => {
  it("exports the SQLite store, imports it into another, and a second import skips everything", async () => {
    const exported = runCli(["snapshot", "export", "--data-dir", sourceDir, "--out", snapshot]);
    expect(await exported.exited, exported.stderr()).toBe(0);
    expect(exported.stdout()).toContain(`Exported to ${snapshot}:`);
    expect(exported.stdout()).toMatch(/thread\s+3\n/);
    expect(exported.stdout()).toMatch(/result\s+2\n/);
    // Written through a temporary file renamed into place: nothing else is left in the folder.
    expect(readdirSync(dir).filter((f) => f.includes(".tmp"))).toEqual([]);

    const targetDir = join(dir, "target");
    const first = runCli(["snapshot", "import", "--data-dir", targetDir, "--in", snapshot]);
    expect(await first.exited, first.stderr()).toBe(0);
    expect(first.stdout()).toMatch(/snapshot of sqlite taken .* by agent-server/);
    expect(first.stdout()).toMatch(/thread\s+3 imported, 0 skipped/);
    expect(first.stdout()).toMatch(/result\s+2 imported, 0 skipped/);

    const second = runCli(["snapshot", "import", "--data-dir", targetDir, "--in", snapshot]);
    expect(await second.exited).toBe(0);
    expect(second.stdout()).toMatch(/thread\s+0 imported, 3 skipped \(3 already present\)/);
    expect(second.stdout()).toMatch(/result\s+0 imported, 2 skipped \(2 run already has a result \(kept\)\)/);

    const storage = await openSqliteStorage({ path: join(targetDir, "agent-server.sqlite") });
    try {
      expect(await storage.runs.getInternal(scenario.continuation)).toEqual({ captureResult: true, taskId: scenario.firstRun });
    } finally {
      await storage.close();
    }
  });

  it("a file that is not a snapshot, or a missing one, exits 1 with a clear message", async () => {
    const foreign = join(dir, "langgraph.json");
    writeFileSync(foreign, JSON.stringify({ graphs: {} }));
    const targetDir = join(dir, "foreign-target");
    const run = runCli(["snapshot", "import", "--data-dir", targetDir, "--in", foreign]);
    expect(await run.exited).toBe(1);
    expect(run.stderr()).toBe(
      `agent-server snapshot: ${foreign} is not an agent-server snapshot: the first line must be a header {"format":"agent-server-snapshot","version":1,...}\n`,
    );
    const missing = runCli(["snapshot", "import", "--data-dir", targetDir, "--in", join(dir, "nope.jsonl")]);
    expect(await missing.exited).toBe(1);
    expect(missing.stderr()).toContain("snapshot file not found");
  });
});

describe("agent-server dev --storage memory --snapshot", () => {
  it("serves the snapshot's threads over HTTP, and with --snapshot-save keeps new work across a restart", async () => {
    if (!existsSync(snapshot)) {
      const exported = runCli(["snapshot", "export", "--data-dir", sourceDir, "--out", snapshot]);
      expect(await exported.exited).toBe(0);
    }
    const live = join(dir, "live.jsonl");
    writeFileSync(live, readFileSync(snapshot));
    const args = ["dev", "--config", EXAMPLE_CONFIG, "--storage", "memory", "--port", "0", "--no-reload", "--log-format", "json"];

    const first = await startCli([...args, "--snapshot", live, "--snapshot-save"]);
    expect(jsonLines(first.stdout()).find((l) => l.snapshot === live && l.imported)).toMatchObject({ imported: { thread: 3, result: 2 } });
    const client = new Client({ apiUrl: first.url });
    const state = await client.threads.getState<{ messages: { type: string; content: string }[] }>(scenario.taskThread);
    expect(state.values.messages.map((m) => [m.type, m.content])).toEqual([
      ["human", "first"],
      ["ai", "echo: first"],
      ["human", "second"],
      ["ai", "echo: second"],
    ]);
    expect(await client.threads.get(scenario.taskThread)).toMatchObject({ metadata: { owner: "alice" } });
    expect((await client.runs.list(scenario.taskThread)).map((r) => r.run_id).sort()).toEqual(
      [scenario.firstRun, scenario.continuation].sort(),
    );
    await client.runs.wait(scenario.taskThread, "echo", { input: { messages: [{ role: "user", content: "third" }] } });
    first.child.kill("SIGTERM");
    expect(await first.exited).toBe(0);
    expect(jsonLines(first.stdout()).find((l) => l.msg === `Snapshot saved to ${live}`)).toMatchObject({
      exported: { thread: 3, run: expect.any(Number) },
    });

    const second = await startCli([...args, "--snapshot", live]);
    const again = new Client({ apiUrl: second.url });
    const after = await again.threads.getState<{ messages: { content: string }[] }>(scenario.taskThread);
    expect(after.values.messages.map((m) => m.content)).toEqual(["first", "echo: first", "second", "echo: second", "third", "echo: third"]);
    expect(await again.runs.list(scenario.taskThread)).toHaveLength(3);
  });

  it("--snapshot-save with a file that does not exist yet starts empty and writes it on shutdown", async () => {
    const fresh = join(dir, "fresh.jsonl");
    const server = await startCli(memoryDevArgs(EXAMPLE_CONFIG, "--snapshot", fresh, "--snapshot-save"));
    const thread = await new Client({ apiUrl: server.url }).threads.create({ metadata: { kept: true } });
    server.child.kill("SIGINT");
    expect(await server.exited).toBe(0);
    const lines = readFileSync(fresh, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { type?: string; thread?: { thread_id: string } });
    expect(lines[0]).toMatchObject({ format: "agent-server-snapshot", version: 1, source: "memory" });
    expect(lines.filter((l) => l.type === "thread").map((l) => l.thread!.thread_id)).toEqual([thread.thread_id]);
  });

  it("a malformed snapshot stops the start with exit 1; a missing one without --snapshot-save too", async () => {
    const bad = join(dir, "bad.jsonl");
    writeFileSync(bad, "PK\u0003\u0004 not json\n");
    const run = runCli(memoryDevArgs(EXAMPLE_CONFIG, "--snapshot", bad));
    expect(await run.exited).toBe(1);
    expect(run.stdout()).toContain("is not an agent-server snapshot");
    const missing = runCli([
      "serve",
      "--config",
      EXAMPLE_CONFIG,
      "--storage",
      "memory",
      "--port",
      "0",
      "--snapshot",
      join(dir, "none.jsonl"),
    ]);
    expect(await missing.exited).toBe(1);
    expect(missing.stdout()).toContain("snapshot file not found");
  });
});

describe("parseCli: snapshot commands and flags", () => {
  const parse = (argv: string[]) => {
    const parsed = parseCli(argv, {});
    if (parsed.kind !== "run") throw new Error("expected a command");
    return parsed.options;
  };

  it("reads the snapshot commands, import-dev's folder and the memory snapshot flags", () => {
    expect(parse(["snapshot", "export", "--out", "a.jsonl"])).toMatchObject({
      command: "snapshot",
      snapshotAction: "export",
      snapshotFile: "a.jsonl",
    });
    expect(parse(["snapshot", "import", "--in", "a.jsonl", "--storage", "postgres"])).toMatchObject({
      snapshotAction: "import",
      storage: "postgres",
    });
    expect(parse(["import-dev"])).toMatchObject({ command: "import-dev", devDir: ".langgraph_api" });
    expect(parse(["import-dev", "../app/.langgraph_api"])).toMatchObject({ devDir: "../app/.langgraph_api" });
    expect(parse(["serve", "--storage", "memory", "--snapshot", "s.jsonl", "--snapshot-save"])).toMatchObject({
      snapshot: "s.jsonl",
      snapshotSave: true,
    });
  });

  it("refuses what does not fit", () => {
    expect(() => parse(["snapshot"])).toThrow(/snapshot needs an action/);
    expect(() => parse(["snapshot", "export"])).toThrow(/snapshot export needs --out <file>/);
    expect(() => parse(["snapshot", "import", "--out", "x"])).toThrow(/needs --in/);
    expect(() => parse(["snapshot", "export", "--out", "x", "--storage", "memory"])).toThrow(/would keep nothing/);
    expect(() => parse(["dev", "--snapshot", "x"])).toThrow(/--snapshot is for --storage memory/);
    expect(() => parse(["dev", "--storage", "memory", "--snapshot-save"])).toThrow(/needs --snapshot <file>/);
    expect(() => parse(["migrate", "--storage", "memory", "--snapshot", "x"])).toThrow(/are for dev and serve/);
    expect(() => parse(["dev", "--out", "x"])).toThrow(UsageError);
    expect(() => parse(["import-dev", "a", "b"])).toThrow(/unexpected argument 'b'/);
  });
});

describe("agent-server dev (with reload) --storage memory --snapshot --snapshot-save", () => {
  it("keeps the memory store across a reload, and its own save does not trigger another one", async () => {
    const project = join(dir, "project");
    mkdirSync(project, { recursive: true });
    const config = join(project, "langgraph.json");
    const echo = fileURLToPath(new URL("../../../../examples/src/echo.ts", import.meta.url));
    writeFileSync(config, JSON.stringify({ graphs: { echo: `${echo}:graph` } }));
    // A .json name at the project's top level: a file the reload watcher would otherwise react to.
    const state = join(project, "state.json");
    const server = await startCli([
      "dev",
      "--config",
      config,
      "--port",
      "0",
      "--storage",
      "memory",
      "--log-format",
      "json",
      "--snapshot",
      state,
      "--snapshot-save",
    ]);
    const client = new Client({ apiUrl: server.url });
    const thread = await client.threads.create({ metadata: { survives: "reload" } });

    writeFileSync(config, JSON.stringify({ graphs: { echo: `${echo}:graph` }, env: { RELOADED: "1" } }));
    await server.waitFor(/listening on[^\n]*\n[\s\S]*listening on/);
    expect(await client.threads.get(thread.thread_id)).toMatchObject({ metadata: { survives: "reload" } });
    // Give a save-triggered restart time to show up: there must be none.
    await new Promise((r) => setTimeout(r, 1500));
    expect(jsonLines(server.stdout()).filter((l) => String(l.msg).startsWith("[reload]"))).toHaveLength(1);
  });
});
