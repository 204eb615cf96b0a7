import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { killAll } from "./testing/cli-process.js";
import { runCrashLoop } from "./testing/crash-loop.js";
import { STEPS } from "./testing/fixture-project/steps.js";

let dataDir: string;
beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), "agent-server-crash-loop-"));
});
afterEach(async () => {
  await killAll();
  rmSync(dataDir, { recursive: true, force: true });
});

describe("agent-server dev on SQLite, SIGKILLed mid-flight again and again (the crash loop)", () => {
  it("every run and A2A task in flight at a kill resumes and completes once; completed tasks keep their artifact; the file is sound", async () => {
    const report = await runCrashLoop({ dataDir, kills: 3, sdkRunsPerRound: 3, a2aMessagesPerRound: 2, stepMs: 150 });
    // The figures docs/reliability.md quotes (a longer loop: tools/reliability/crash-loop.mjs).
    console.log(`crash loop: ${JSON.stringify(report.figures)}`);

    expect(report.figures.inFlightAtKills).toBeGreaterThan(0);
    expect(report.figures.resumedRuns).toBeGreaterThan(0);
    for (const run of report.runs) {
      expect(run, `run ${run.runId}`).toMatchObject({ status: "success", steps: [...STEPS] });
      // The input was applied once and the reply written once, however many attempts it took.
      expect(run.messages).toHaveLength(2);
      expect(run.messages[1]).toBe(`done: ${run.messages[0]}`);
    }
    for (const task of report.tasks) {
      expect(task.state, `task ${task.taskId} (seen ${task.seen.join(" -> ")})`).toBe("TASK_STATE_COMPLETED");
      expect(task.seen).not.toContain("TASK_STATE_FAILED");
      expect(task.artifact).toEqual([expect.stringMatching(/^done: a2a \d+\.\d+$/)]);
      expect(task.artifact).toEqual(task.firstArtifact);
    }
    expect(report.runs).toHaveLength(9);
    expect(report.tasks).toHaveLength(6);
    expect(report.statuses).toEqual({ success: 15 });
    expect(report.integrity).toBe("ok");
  });
});
