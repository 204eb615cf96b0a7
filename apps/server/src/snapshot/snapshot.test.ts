import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { aesKey, fieldCipher, isSealedJson, type Storage } from "@agent-server/core";
import { systemAssistantId } from "@agent-server/engine";
import { startEngine } from "@agent-server/engine/testing";
import { createMemoryStorage } from "@agent-server/storage-memory";
import { openSqliteStorage } from "@agent-server/storage-sqlite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectSameStore, populate, type Scenario } from "../../test/support/snapshot-scenario.js";
import { VERSION } from "../version.js";
import { exportSnapshotFile, importSnapshotFile, SnapshotFormatError } from "./index.js";

let dir: string;
let source: Storage;
let scenario: Scenario;
let file: string;
const opened: Storage[] = [];

async function sqlite(name: string): Promise<Storage> {
  const storage = await openSqliteStorage({ path: join(dir, `${name}.sqlite`) });
  opened.push(storage);
  return storage;
}

function memory(): Storage {
  const storage = createMemoryStorage();
  opened.push(storage);
  return storage;
}

function lines(path: string): Record<string, unknown>[] {
  return readFileSync(path, "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

function writeLines(name: string, entries: unknown[]): string {
  const path = join(dir, name);
  writeFileSync(path, entries.map((e) => `${JSON.stringify(e)}\n`).join(""));
  return path;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "agent-server-snapshot-"));
  source = await sqlite("source");
  scenario = await populate(source);
  file = join(dir, "store.snapshot.jsonl");
  await exportSnapshotFile(source, file, { serverVersion: VERSION });
});

afterAll(async () => {
  for (const storage of opened) await storage.close().catch(() => undefined);
  rmSync(dir, { recursive: true, force: true });
});

describe("snapshot export", () => {
  it("writes a header, then entries in dependency order, results as their own entries", () => {
    const [header, ...entries] = lines(file);
    expect(header).toEqual({
      format: "agent-server-snapshot",
      version: 1,
      created_at: expect.any(String),
      server_version: VERSION,
      source: "sqlite",
    });
    const types = entries.map((e) => e.type);
    const firstIndex = (type: string) => types.indexOf(type);
    expect(firstIndex("assistant")).toBeLessThan(firstIndex("thread"));
    expect(types.lastIndexOf("cron")).toBe(types.length - 1);
    const count = (type: string) => types.filter((t) => t === type).length;
    expect(count("assistant")).toBe(9); // eight system assistants (the test graphs) + the custom one
    expect(count("thread")).toBe(3);
    expect(count("result")).toBe(2);
    expect(count("store_item")).toBe(2);
    expect(count("cron")).toBe(2);
    expect(count("checkpoint")).toBeGreaterThan(6);
    // Subgraph checkpoints are there too.
    expect(entries.some((e) => e.type === "checkpoint" && e.checkpoint_ns !== "")).toBe(true);
    // Run entries never carry results; a failed run's entry carries its error beside the Run row (never
    // in it); the custom assistant carries both versions, oldest first.
    for (const run of entries.filter((e) => e.type === "run")) {
      const failed = (run.run as { run_id: string }).run_id === scenario.failedRun;
      expect(Object.keys(run).sort()).toEqual(failed ? ["error", "internal", "run", "type"] : ["internal", "run", "type"]);
      expect(Object.keys(run.run as object)).not.toContain("result");
      expect(Object.keys(run.run as object)).not.toContain("error");
    }
    expect(entries.find((e) => e.type === "run" && (e.run as { run_id: string }).run_id === scenario.failedRun)?.error).toEqual({
      error: "Error",
      message: "graph failed on purpose",
    });
    const custom = entries.find(
      (e) => e.type === "assistant" && (e.assistant as { assistant_id: string }).assistant_id === scenario.customAssistant,
    )!;
    expect((custom.versions as { version: number; name: string }[]).map((v) => [v.version, v.name])).toEqual([
      [1, "echo v1"],
      [2, "echo v2"],
    ]);
  });
});

describe("snapshot import", () => {
  it("into a fresh memory store: everything reads the same, and a graph continues the imported thread", async () => {
    const target = memory();
    const report = await importSnapshotFile(target, file);
    expect(report.counts.thread).toEqual({ imported: 3, skipped: 0, why: {} });
    expect(report.counts.result).toEqual({ imported: 2, skipped: 0, why: {} });
    expect(report.unknown).toEqual({});
    await expectSameStore(source, target, scenario);

    const engine = await startEngine(target);
    try {
      const next = await engine.createRunAndWait(
        { assistant_id: "echo", input: { messages: [{ role: "user", content: "third" }] } },
        { threadId: scenario.taskThread },
      );
      const messages = (next.end.values as { messages: { content: string }[] }).messages.map((m) => m.content);
      expect(messages).toEqual(["first", "echo: first", "second", "echo: second", "third", "echo: third"]);
    } finally {
      await engine.stop(1000);
    }
  });

  it("into a fresh SQLite file: everything reads the same, also after reopening", async () => {
    const target = await sqlite("target");
    await importSnapshotFile(target, file);
    await expectSameStore(source, target, scenario);
    await target.close();
    const reopened = await sqlite("target");
    await expectSameStore(source, reopened, scenario);
  });

  it("is idempotent: a second import skips everything and changes nothing", async () => {
    const target = await sqlite("twice");
    const first = await importSnapshotFile(target, file);
    const second = await importSnapshotFile(target, file);
    for (const [type, count] of Object.entries(second.counts)) {
      expect(count.imported, type).toBe(0);
      expect(count.skipped, type).toBe(first.counts[type as keyof typeof first.counts].imported);
    }
    expect(second.counts.result.why).toEqual({ existing: 2 });
    await expectSameStore(source, target, scenario);
  });

  it("an old snapshot without result entries imports; its runs simply have no result", async () => {
    const old = writeLines(
      "old.jsonl",
      lines(file).filter((e) => e.type !== "result"),
    );
    const target = memory();
    const report = await importSnapshotFile(target, old);
    expect(report.counts.run.imported).toBeGreaterThan(0);
    expect(report.counts.result).toEqual({ imported: 0, skipped: 0, why: {} });
    expect(await target.runs.get(scenario.firstRun)).not.toBeNull();
    expect(await target.runs.getResult!(scenario.firstRun)).toBeNull();
    expect(await target.runs.getInternal(scenario.firstRun)).toEqual({ captureResult: true });
  });

  it("ignores an orphan result, keeps an existing first-written result, and counts unknown entry types", async () => {
    const [header, ...entries] = lines(file);
    const target = memory();
    // The target already has the task thread and its first run, with a result of its own.
    const own = { values: { messages: [{ type: "ai", content: "written first" }] } };
    const runEntry = entries.find((e) => e.type === "run" && (e.run as { run_id: string }).run_id === scenario.firstRun)!;
    const run = runEntry.run as { thread_id: string; assistant_id: string };
    await target.assistants.create({ assistant_id: run.assistant_id, graph_id: "echo" });
    await target.threads.create({ thread_id: run.thread_id });
    await target.runs.create({ run_id: scenario.firstRun, thread_id: run.thread_id, assistant_id: run.assistant_id, status: "success" });
    await target.runs.recordResult!(scenario.firstRun, own);

    const orphanId = crypto.randomUUID();
    const crafted = writeLines("crafted.jsonl", [
      header,
      ...entries,
      { type: "result", run_id: orphanId, result: { values: { stolen: true } } },
      { type: "delivery", delivery_id: "d1" },
      { type: "event", run_id: scenario.firstRun },
      { type: "delivery", delivery_id: "d2" },
    ]);
    const report = await importSnapshotFile(target, crafted);
    expect(report.counts.result).toEqual({ imported: 1, skipped: 2, why: { existing: 1, orphan: 1 } });
    expect(report.unknown).toEqual({ delivery: 2, event: 1 });
    expect(await target.runs.getResult!(scenario.firstRun)).toEqual(own);
    expect(await target.runs.getResult!(scenario.continuation)).toEqual(await source.runs.getResult!(scenario.continuation));
    expect(await target.runs.get(orphanId)).toBeNull();
    expect(await target.runs.getResult!(orphanId)).toBeNull();
    // The pre-existing thread was skipped whole-row, not overwritten.
    expect(report.counts.thread.why).toEqual({ exists: 1 });
    expect((await target.threads.get(scenario.taskThread))?.metadata).toEqual({});
  });

  it("skips results on a driver without recordResult, counting them, and still imports the runs", async () => {
    const base = memory();
    // A custom driver (or a wrapper) without the optional result methods.
    const withoutResults: Storage = Object.create(base, {
      runs: { value: { ...bindAll(base.runs), recordResult: undefined, getResult: undefined } },
    });
    const report = await importSnapshotFile(withoutResults, file);
    expect(report.counts.result).toEqual({ imported: 0, skipped: 2, why: { unsupported: 2 } });
    expect(report.counts.run.skipped).toBe(0);
    expect(await base.runs.get(scenario.continuation)).not.toBeNull();
    expect(await base.runs.getResult!(scenario.continuation)).toBeNull();
  });

  it("keeps A2A push configs where the target stores them", async () => {
    const from = memory();
    if (!from.pushConfigs) return; // the memory driver gains push configs in parallel work
    await from.assistants.create({ assistant_id: systemAssistantId("echo"), graph_id: "echo" });
    await from.threads.create({ thread_id: "t-push" });
    await from.runs.create({ run_id: "r-push", thread_id: "t-push", assistant_id: systemAssistantId("echo"), status: "success" });
    await from.pushConfigs.put({ run_id: "r-push", config_id: "c1", url: "http://127.0.0.1:9/hook", token: "tok", authentication: null });
    const path = join(dir, "push.jsonl");
    const counts = await exportSnapshotFile(from, path, { serverVersion: VERSION });
    expect(counts.push_config).toBe(1);
    const target = memory();
    const report = await importSnapshotFile(target, path);
    expect(report.counts.push_config.imported).toBe(1);
    expect(await target.pushConfigs!.get("r-push", "c1")).toMatchObject({
      url: "http://127.0.0.1:9/hook",
      token: "tok",
      authentication: null,
    });
  });

  it("refuses a file that is not a snapshot, a newer version, and a cut-off file, before writing anything", async () => {
    const target = memory();
    const foreign = join(dir, "notes.txt");
    writeFileSync(foreign, "hello\nworld\n");
    await expect(importSnapshotFile(target, foreign)).rejects.toThrow(/is not an agent-server snapshot/);
    const json = writeLines("other.json", [{ format: "something-else", version: 1 }]);
    await expect(importSnapshotFile(target, json)).rejects.toBeInstanceOf(SnapshotFormatError);
    const newer = writeLines("newer.jsonl", [{ format: "agent-server-snapshot", version: 2, created_at: "x", server_version: "9" }]);
    await expect(importSnapshotFile(target, newer)).rejects.toThrow(/version 2 snapshot/);
    const cut = join(dir, "cut.jsonl");
    const text = readFileSync(file, "utf8");
    writeFileSync(cut, text.slice(0, Math.floor(text.length / 2)));
    await expect(importSnapshotFile(target, cut)).rejects.toThrow(/cut\.jsonl:\d+: not valid JSON/);
    const [header, ...entries] = lines(file);
    const damaged = writeLines("damaged.jsonl", [header, ...entries, { type: "run", run: { thread_id: "t" } }]);
    await expect(importSnapshotFile(target, damaged)).rejects.toThrow(/damaged\.jsonl:\d+: run entry without run\.run_id/);
    expect(await target.assistants.search({ limit: 10 })).toEqual([]);
    await expect(importSnapshotFile(target, join(dir, "missing.jsonl"))).rejects.toThrow(/snapshot file not found/);
  });
});

/** The repo's methods bound to it, as own properties (so a copy can drop some). */
function bindAll<T extends object>(repo: T): T {
  const out: Record<string, unknown> = {};
  for (let proto = Object.getPrototypeOf(repo); proto && proto !== Object.prototype; proto = Object.getPrototypeOf(proto)) {
    for (const name of Object.getOwnPropertyNames(proto)) {
      const value = (repo as Record<string, unknown>)[name];
      if (name !== "constructor" && typeof value === "function" && !(name in out)) out[name] = value.bind(repo);
    }
  }
  return out as T;
}

describe("snapshots with a key (LANGGRAPH_AES_KEY)", () => {
  it("seals every entry (the header says with which key), imports with the key, and --decrypt writes plaintext", async () => {
    const cipher = fieldCipher(aesKey("snapshot-key-0123456789abcdef012", "K"));
    const sealed = join(dir, "sealed.snapshot.jsonl");
    await exportSnapshotFile(source, sealed, { serverVersion: VERSION, cipher });
    const [header, ...entries] = lines(sealed);
    expect(header).toMatchObject({ sealed_with: cipher.keyId });
    expect(entries.every((e) => isSealedJson(e))).toBe(true);
    // Something the plaintext export holds verbatim is nowhere in the sealed one.
    const plain = readFileSync(file, "utf8");
    const threadId = scenario.taskThread;
    expect(plain).toContain(threadId);
    expect(readFileSync(sealed, "utf8")).not.toContain(threadId);

    const target = memory();
    await importSnapshotFile(target, sealed, cipher);
    await expectSameStore(source, target, scenario);
    await expect(importSnapshotFile(memory(), sealed)).rejects.toThrow(new RegExp(`sealed with key ${cipher.keyId}`));

    const decrypted = join(dir, "decrypted.snapshot.jsonl");
    await exportSnapshotFile(source, decrypted, { serverVersion: VERSION, cipher, decrypt: true });
    expect(lines(decrypted)[0]).not.toHaveProperty("sealed_with");
    expect(readFileSync(decrypted, "utf8")).toContain(threadId);
  });
});
