import { describe, expect, it } from "vitest";
import { createMemoryStorage } from "@agent-server/storage-memory";
import { ThreadLock, type HeldThreadLock } from "./thread-lock.js";

const tick = () => new Promise((resolve) => setTimeout(resolve, 20));

describe("ThreadLock", () => {
  it("lets a call that passes the held lock into its section, and keeps everyone else out until it ends", async () => {
    const lock = new ThreadLock(createMemoryStorage());
    const order: string[] = [];
    let outsider: Promise<void> | undefined;
    await lock.run("t1", async (held) => {
      outsider = lock.run("t1", async () => void order.push("outsider"));
      await lock.run(
        "t1",
        async (inner) => {
          expect(inner).toBe(held);
          order.push("nested");
        },
        held,
      );
      await tick();
      order.push("section end");
    });
    await outsider;
    expect(order).toEqual(["nested", "section end", "outsider"]);
  });

  it("a lock whose section has ended, or another thread's, does not let a call in", async () => {
    const lock = new ThreadLock(createMemoryStorage());
    let stale: HeldThreadLock | undefined;
    await lock.run("t1", async (held) => {
      stale = held;
    });
    expect(stale?.active).toBe(false);
    const order: string[] = [];
    let releaseSecond!: () => void;
    const second = lock.run("t1", () => new Promise<void>((resolve) => (releaseSecond = resolve)).then(() => void order.push("second")));
    await tick();
    const withStale = lock.run("t1", async () => void order.push("stale"), stale);
    let otherThreadsLock: HeldThreadLock | undefined;
    const other = lock.run("t2", async (held) => {
      otherThreadsLock = held;
      await lock.run("t1", async () => void order.push("t2's lock"), held);
    });
    await tick();
    expect(order).toEqual([]);
    expect(otherThreadsLock?.threadId).toBe("t2");
    releaseSecond();
    await Promise.all([second, withStale, other]);
    expect(order[0]).toBe("second");
    expect(order.slice(1).sort()).toEqual(["stale", "t2's lock"]);
  });
});
