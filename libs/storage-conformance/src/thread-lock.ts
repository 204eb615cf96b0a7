import { describe, expect, it } from "vitest";
import type { Storage } from "@agent-server/core";
import { newThread, uid, type Harness } from "./harness.js";

type Locking = Storage & Required<Pick<Storage, "withThreadLock">>;

function locking(s: Storage): Locking {
  if (typeof s.withThreadLock !== "function") throw new Error("the driver was declared with threadLock but has no withThreadLock");
  return s as Locking;
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 5));

/**
 * `Storage.withThreadLock`: sections on one thread never overlap, whichever connection (and so process)
 * runs them; other threads do not wait; the lock goes with the section, whatever its outcome.
 */
export function describeThreadLock(h: Harness): void {
  describe("thread lock (withThreadLock)", () => {
    /** Two connections over the same data when the driver has them (as two processes), else one. */
    const pair = async (): Promise<[Locking, Locking]> => {
      const a = locking(await h.open());
      return [a, h.hasSibling ? locking(await h.sibling(a)) : a];
    };

    it("sections on one thread run one at a time across connections, and each returns fn's value", async () => {
      const [a, b] = await pair();
      const threadId = uid();
      let inside = 0;
      let most = 0;
      const section = (s: Locking, i: number) =>
        s.withThreadLock(threadId, async () => {
          inside += 1;
          most = Math.max(most, inside);
          await tick();
          await tick();
          inside -= 1;
          return i;
        });
      const results = await Promise.all(Array.from({ length: 8 }, (_, i) => section(i % 2 ? a : b, i)));
      expect(results).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
      expect(most).toBe(1);
    });

    it("read-check-write sections racing through two connections lose no update, and may write runs of the thread", async () => {
      const [a, b] = await pair();
      const thread = await newThread(a);
      const assistant = await a.assistants.create({ assistant_id: uid(), graph_id: "agent" });
      const bump = (s: Locking) =>
        s.withThreadLock(thread.thread_id, async () => {
          const current = ((await s.threads.get(thread.thread_id))!.metadata.n as number | undefined) ?? 0;
          await tick();
          // Writes of the thread and of its runs inside the section: the lock must not block them.
          await s.threads.update(thread.thread_id, { metadata: { n: current + 1 } });
          await s.runs.create({ run_id: uid(), thread_id: thread.thread_id, assistant_id: assistant.assistant_id });
        });
      await Promise.all(Array.from({ length: 10 }, (_, i) => bump(i % 2 ? a : b)));
      expect((await b.threads.get(thread.thread_id))!.metadata.n).toBe(10);
      expect(await a.runs.search({ thread_id: thread.thread_id, limit: 100 })).toHaveLength(10);
    });

    it("a thread whose lock is held does not hold up another thread's sections", async () => {
      const [a, b] = await pair();
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      let entered!: () => void;
      const inside = new Promise<void>((resolve) => (entered = resolve));
      const first = a.withThreadLock(uid(), async () => {
        entered();
        await held;
      });
      await inside;
      // Would never settle if it waited for the first thread's lock.
      await expect(b.withThreadLock(uid(), async () => "other")).resolves.toBe("other");
      release();
      await first;
    });

    it("many threads locked at once through one driver all complete while their sections use storage", async () => {
      const s = locking(await h.open());
      const ids = await Promise.all(
        Array.from({ length: 30 }, () =>
          s.withThreadLock(uid(), async () => {
            const thread = await newThread(s);
            await tick();
            return (await s.threads.get(thread.thread_id))!.thread_id;
          }),
        ),
      );
      expect(new Set(ids).size).toBe(30);
    });

    it("a section that throws rejects with its error and releases the lock", async () => {
      const [a, b] = await pair();
      const threadId = uid();
      await expect(
        a.withThreadLock(threadId, async () => {
          throw new Error("section failed");
        }),
      ).rejects.toThrow("section failed");
      await expect(b.withThreadLock(threadId, async () => "next")).resolves.toBe("next");
    });
  });
}

/** For a driver declared without the lock (the engine then serializes within one process only). */
export function describeThreadLockAbsent(h: Harness): void {
  describe("thread lock (left out by this driver)", () => {
    it("Storage has no withThreadLock", async () => {
      const s = await h.open();
      expect(s.withThreadLock).toBeUndefined();
    });
  });
}
