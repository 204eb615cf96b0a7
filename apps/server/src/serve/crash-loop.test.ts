import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { killAll } from "../../test/support/cli-process.js";
import { crashLoopProblems, runCrashLoop } from "../../test/support/crash-loop.js";

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
    expect(crashLoopProblems(report)).toEqual([]);
    // At least one batch per kill (more when a whole batch finished before a run was seen mid-way).
    expect(report.runs.length).toBeGreaterThanOrEqual(9);
    expect(report.tasks.length).toBeGreaterThanOrEqual(6);
    expect(report.statuses).toEqual({ success: report.runs.length + report.tasks.length });
    expect(report.integrity).toBe("ok");
  });
});
