import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { openSqliteStorage } from "./storage.js";
import { tempDir } from "../test/helpers.js";

const tmp = tempDir("agent-sqlite-crash-");
afterAll(() => tmp.cleanup());

const writer = fileURLToPath(new URL("../test/crash-writer.ts", import.meta.url));

/** Starts the writer, waits until it has committed at least `minWrites` runs, then SIGKILLs it mid-loop. */
function runAndKill(path: string, minWrites: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", writer, path], {
      cwd: fileURLToPath(new URL("..", import.meta.url)), // resolves tsx from this package
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    let killed = false;
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.stdout.on("data", (d: Buffer) => {
      const counts = [...d.toString().matchAll(/ready (\d+)/g)].map((m) => Number(m[1]));
      if (!killed && counts.some((n) => n >= minWrites)) {
        killed = true;
        // A short random delay so the kill lands at an arbitrary point of the next writes.
        setTimeout(() => child.kill("SIGKILL"), Math.floor(Math.random() * 20));
      }
    });
    child.on("error", reject);
    child.on("exit", (code, signal) => {
      if (signal === "SIGKILL") resolve();
      else reject(new Error(`writer exited with ${code}: ${stderr}`));
    });
  });
}

describe("crash safety", () => {
  it("a writer SIGKILLed mid-write leaves a consistent database with only complete results", async () => {
    const path = tmp.file();
    await runAndKill(path, 40);
    await runAndKill(path, 20); // a second crash on the recovered file

    const raw = new Database(path);
    expect(raw.pragma("integrity_check", { simple: true })).toBe("ok");
    expect(raw.pragma("foreign_key_check")).toEqual([]);
    raw.close();

    const s = await openSqliteStorage({ path });
    try {
      const rows = s.db.prepare("SELECT run_id, result FROM run_results").all() as { run_id: string; result: string }[];
      const runCount = (s.db.prepare("SELECT COUNT(*) AS n FROM runs").get() as { n: number }).n;
      expect(rows.length).toBeGreaterThanOrEqual(60);
      expect(runCount - rows.length).toBeLessThanOrEqual(2); // at most the run each crash interrupted
      for (const row of rows) {
        const run = await s.runs.get(row.run_id);
        expect(run).not.toBeNull();
        const result = (await s.runs.getResult(row.run_id))!;
        const i = (run!.metadata as { i: number }).i;
        expect(result.values.i).toBe(i);
        expect((result.values.blob as string).length).toBe(64 * 1024);
        expect((result.values.nested as { list: number[] }).list).toHaveLength(100);
        expect(result.reply).toBe(`reply ${i}`);
        expect(result.checkpoint).toMatchObject({ checkpoint_id: `c${i}` });
      }
      // The reopened file is writable and keeps first-write-wins.
      const [first] = rows;
      await s.runs.recordResult(first!.run_id, { values: { overwritten: true } });
      expect((await s.runs.getResult(first!.run_id))!.values).not.toHaveProperty("overwritten");
    } finally {
      await s.close();
    }
  });
});
