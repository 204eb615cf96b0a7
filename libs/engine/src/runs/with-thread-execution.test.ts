import { describe, expect, it } from "vitest";
import { createMemoryStorage } from "@agent-server/storage-memory";
import { newThread, startEngine } from "../../test/support/index.js";

describe("Engine.withThreadExecution", () => {
  it("holds the thread: a run admitted under it starts only after the callback settles", async () => {
    const storage = createMemoryStorage();
    const engine = await startEngine(storage);
    try {
      const threadId = await newThread(storage);
      const { run, end } = await engine.withThreadExecution(threadId, async (heldLock) => {
        const admitted = await engine.createRunWatched(
          { assistant_id: "echo", input: { messages: [{ role: "user", content: "hi" }] } },
          { threadId, heldLock },
        );
        await new Promise((r) => setTimeout(r, 150));
        // Claimed (perhaps) but not executed: the lock is still ours.
        expect((await storage.runs.get(admitted.run.run_id))?.status).not.toBe("success");
        return admitted;
      });
      expect((await end).status).toBe("success");
      expect((await storage.runs.get(run.run_id))?.status).toBe("success");
      // Returns the callback's value and releases the lock when it throws.
      await expect(
        engine.withThreadExecution(threadId, async () => {
          throw new Error("boom");
        }),
      ).rejects.toThrow("boom");
      expect(await engine.withThreadExecution(threadId, async () => 42)).toBe(42);
    } finally {
      await engine.stop(0);
      await storage.close();
    }
  });
});
