import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { InvalidInputError } from "@agent-server/core";
import { loadLangGraphConfig } from "@agent-server/engine";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseCli, UsageError, type CliOptions } from "../cli/index.js";
import { openCustomStorage } from "./custom-storage.js";
import { migrate } from "../cli/migrate.js";
import { startServer, watchTargets } from "../serve/index.js";
import { openStorage } from "./storage.js";

const FIXTURE_DIR = fileURLToPath(new URL("../../test/support/fixture-project/", import.meta.url));
const PROJECT = join(FIXTURE_DIR, "langgraph-custom-storage.json");

/** A module with no imports whose exports look like drivers (or do not), written per test run. */
const PROBE = `
const repos = () => ({ kind: "probe", assistants: {}, threads: {}, runs: {}, store: {}, crons: {}, deliveries: {}, events: {},
  checkpointer: {}, langgraphStore: {}, truncate: async () => {}, close: async () => {} });
export const storage = repos();
export default repos();
export async function openAsync(options) { return { ...repos(), kind: "async", options }; }
export function openSync(options) { return { ...repos(), kind: "sync", options }; }
export const partial = { kind: "partial", threads: {}, close: async () => {} };
export function failing() { throw new Error("database down\\nsecond line"); }
export class Driver {}
`;

let dir: string;
let probe: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "agent-server-custom-storage-"));
  probe = join(dir, "probe.mjs");
  writeFileSync(probe, PROBE);
  writeFileSync(join(dir, "broken.mjs"), "export const x = ;\n");
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const opts = { projectDir: "/project", dataDir: "/project/.agent-server" };
const open = (spec: string) => openCustomStorage(spec, dir, opts, "--storage");

function run(argv: string[]): CliOptions {
  const parsed = parseCli(argv, {});
  if (parsed.kind !== "run") throw new Error("expected a command");
  return parsed.options;
}

describe("--storage: built-in kinds and driver modules", () => {
  it("a path, a package or a .ts/.js/.mjs name is a driver module; anything else must be a built-in kind", () => {
    expect(run(["dev"])).toMatchObject({ storage: "sqlite", storageGiven: false, storageModule: undefined });
    expect(run(["dev", "--storage", "memory"])).toMatchObject({ storage: "memory", storageGiven: true });
    for (const spec of ["./driver.ts:createStorage", "/abs/driver.js", "@acme/driver", "driver.mjs", "driver:make"]) {
      expect(run(["dev", "--storage", spec])).toMatchObject({ storage: "custom", storageModule: spec, storageGiven: true });
    }
    expect(() => run(["dev", "--storage", "mysql"])).toThrow(
      /--storage must be one of sqlite, memory, postgres, or a driver module such as/,
    );
    // A custom driver is given the data folder; PostgreSQL flags stay PostgreSQL's.
    expect(run(["dev", "--storage", "./d.ts", "--data-dir", "x"])).toMatchObject({ dataDir: "x" });
    expect(() => run(["dev", "--storage", "./d.ts", "--database-url", "postgres://x"])).toThrow(UsageError);
  });
});

describe("openCustomStorage", () => {
  it("returns an exported Storage as it is (never wrapped), export default when none is named", async () => {
    const module = (await import(probe)) as Record<string, unknown>;
    expect(await open("./probe.mjs:storage")).toBe(module.storage);
    expect(await open("./probe.mjs")).toBe(module.default);
    expect(await open(`${probe}:storage`)).toBe(module.storage);
  });

  it("calls a function export, sync or async, with the project and data folders", async () => {
    expect(await open("./probe.mjs:openAsync")).toMatchObject({ kind: "async", options: opts });
    expect(await open("./probe.mjs:openSync")).toMatchObject({ kind: "sync", options: opts });
  });

  it("says in one line what is wrong with a module or its export (InvalidInputError: exit 2)", async () => {
    const cases: [string, RegExp][] = [
      ["./missing.ts:x", /^--storage \.\/missing\.ts:x: file not found: .*\/missing\.ts$/],
      ["./probe.mjs:nope", /has no export "nope" \(its exports: Driver, default, failing, openAsync, openSync, partial, storage\)$/],
      [
        "./probe.mjs:partial",
        /export "partial" is not a Storage \(missing assistants, runs, store, crons, deliveries, events, checkpointer, langgraphStore, truncate\(\)\)/,
      ],
      ["./probe.mjs:Driver", /export "Driver" is a class; export an instance, or a function returning one$/],
      ["./broken.mjs", /^--storage \.\/broken\.mjs: cannot load .*broken\.mjs: .+$/],
    ];
    for (const [spec, message] of cases) {
      const error = await open(spec).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error, spec).toBeInstanceOf(InvalidInputError);
      expect((error as Error).message, spec).toMatch(message);
      expect((error as Error).message).not.toContain("\n");
    }
  });

  it("a factory that throws is a run-time failure naming the module, not a project error", async () => {
    const error = await open("./probe.mjs:failing").then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).not.toBeInstanceOf(InvalidInputError);
    expect((error as Error).message).toBe("--storage ./probe.mjs:failing: opening the driver failed: database down");
  });
});

describe("openStorage with a custom driver", () => {
  it("langgraph.json storage.path resolves against the project folder; the driver gets --data-dir or <project>/.agent-server", async () => {
    const project = await loadLangGraphConfig(PROJECT);
    const opened = await openStorage(run(["dev"]), project.cwd, project.config);
    try {
      expect(opened).toMatchObject({
        kind: "custom",
        description: 'custom driver "memory-without-results" (./driver-without-results.ts:createStorage)',
      });
    } finally {
      await opened.storage.close();
    }
    const probeOpened = await openStorage(run(["dev", "--data-dir", dir]), project.cwd, { storage: { path: `${probe}:openSync` } });
    expect((probeOpened.storage as unknown as { options: unknown }).options).toEqual({
      projectDir: FIXTURE_DIR.replace(/\/$/, ""),
      dataDir: dir,
    });
    const byDefault = await openStorage(run(["dev"]), project.cwd, { storage: { path: `${probe}:openSync` } });
    expect((byDefault.storage as unknown as { options: { dataDir: string } }).options.dataDir).toBe(join(project.cwd, ".agent-server"));
  });

  it("--storage wins over langgraph.json: a built-in kind, or a module path relative to the process cwd", async () => {
    const memory = await openStorage(run(["dev", "--storage", "memory"]), FIXTURE_DIR, {
      storage: { path: "./driver-without-results.ts:createStorage" },
    });
    expect(memory).toMatchObject({ kind: "memory" });
    await memory.storage.close();
    const fromFlag = await openStorage(run(["dev", "--storage", `./${relative(process.cwd(), probe)}:openAsync`]), FIXTURE_DIR, {
      storage: { path: "./nothere.ts" },
    });
    expect(fromFlag.storage.kind).toBe("async");
  });
});

describe("migrate with a custom driver", () => {
  it("opens and closes the driver from langgraph.json storage.path, saying it migrates itself", async () => {
    const lines: string[] = [];
    await migrate(run(["migrate", "--config", PROJECT]), (line) => lines.push(line));
    expect(lines).toEqual([
      'Storage: custom driver "memory-without-results" (./driver-without-results.ts:createStorage)',
      "A custom driver applies its own migrations when it opens: nothing more to do.",
    ]);
  });
});

describe("dev reload", () => {
  it("watches the folder of langgraph.json storage.path, so editing the driver restarts the server", async () => {
    const config = join(dir, "langgraph.json");
    writeFileSync(config, JSON.stringify({ graphs: {}, storage: { path: "./drivers/mine.ts:createStorage" } }));
    expect(await watchTargets(config)).toContainEqual({ path: join(dir, "drivers"), recursive: true });
  });
});

describe("optional driver methods stay absent through the server", () => {
  it("the storage the engine and the API run on is the driver itself: no recordResult, getResult or pushConfigs appear", async () => {
    const project = await loadLangGraphConfig(PROJECT);
    const server = await startServer(run(["dev", "--port", "0", "--no-reload", "--config", PROJECT]), project, pino({ level: "silent" }));
    try {
      expect(server.storage.kind).toBe("memory-without-results");
      expect("recordResult" in server.storage.runs).toBe(false);
      expect("getResult" in server.storage.runs).toBe(false);
      expect("pushConfigs" in server.storage).toBe(false);
      // The rest of the RunRepo is there and works.
      expect(await server.storage.runs.search({ limit: 1 })).toEqual([]);
    } finally {
      await server.stop(0);
    }
  });
});
