import { describe, expect, it } from "vitest";
import { drivers } from "@agent-server/testing";
import { eventually, newThread, startEngine } from "../../test/support/harness.js";

/**
 * The pool does not ask storage again after a claim that saw nothing else, nor at a run's end when no
 * work was announced meanwhile (ClaimedRun.more). These cases keep it from missing work that way: the
 * fallback poll is an hour here, so only a claim the pool makes on its own starts the next run.
 */
describe.each(drivers)("claims without the poll on $name", (driver) => {
  it("a run enqueued behind a running one starts when it ends; runs admitted while workers are full start as workers free up", async () => {
    const opened = await driver.open();
    const engine = await startEngine(opened.storage, { pollMs: 3_600_000, workers: 1 });
    try {
      const threadId = await newThread(opened.storage);
      const first = await engine.createRun({ assistant_id: "slow", input: { delayMs: 200 } }, { threadId });
      await eventually(async () => (await opened.storage.runs.get(first.run_id))?.status === "running");
      const queued = await engine.createRun(
        { assistant_id: "echo", input: { messages: [{ role: "user", content: "next" }] }, multitask_strategy: "enqueue" },
        { threadId },
      );
      // One worker, busy: a run of another thread waits for it too.
      const other = await engine.createRun(
        { assistant_id: "echo", input: { messages: [] } },
        { threadId: await newThread(opened.storage) },
      );
      const ends = await Promise.all([first, queued, other].map((run) => engine.waitRun(run.run_id)));
      expect(ends.map((end) => end.status)).toEqual(["success", "success", "success"]);

      // Alone in the queue, claimed with nothing else to take: the next admission still starts at once.
      const alone = await engine.createRun({ assistant_id: "echo", input: { messages: [] } }, { threadId });
      expect((await engine.waitRun(alone.run_id)).status).toBe("success");
      const after = await engine.createRun({ assistant_id: "echo", input: { messages: [] } }, { threadId });
      expect((await engine.waitRun(after.run_id)).status).toBe("success");
    } finally {
      await engine.stop(0);
      await opened.dispose();
    }
  }, 20_000);
});
