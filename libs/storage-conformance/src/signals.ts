import { describe, expect, it } from "vitest";
import type { SignalBus, Storage } from "@agent-server/core";
import type { Harness } from "./harness.js";

/** Collects what a subscription receives; `next(n)` resolves once `n` payloads have arrived in all. */
async function collect(bus: SignalBus, channel: string) {
  const received: unknown[] = [];
  let wake: (() => void) | undefined;
  const unsubscribe = await bus.subscribe(channel, (payload) => {
    received.push(payload);
    wake?.();
  });
  return {
    received,
    unsubscribe,
    async next(count: number): Promise<unknown[]> {
      while (received.length < count) await new Promise<void>((resolve) => (wake = resolve));
      return received.slice(0, count);
    },
  };
}

function busOf(storage: Storage): SignalBus {
  expect(storage.signals).toBeDefined();
  return storage.signals!;
}

/** `Storage.signals`, declared with the reach the driver claims (see `ConformanceOptions.signals`). */
export function describeSignals(h: Harness, reach: "process" | "database"): void {
  describe("signals", () => {
    it(`reach is "${reach}"`, async () => {
      expect(busOf(await h.open()).reach).toBe(reach);
    });

    it("delivers a copy of each payload to every subscriber of its channel, in publish order, and none to other channels", async () => {
      const bus = busOf(await h.open());
      const first = await collect(bus, "run:a");
      const second = await collect(bus, "run:a");
      const other = await collect(bus, "run:b");
      const payload = { n: 0, nested: { list: [1, "two", null] } };
      const sent = [bus.publish("run:a", payload)];
      payload.nested.list.push(4);
      // Not awaited one by one: order is the order of the calls.
      for (let n = 1; n < 200; n++) sent.push(bus.publish("run:a", { n }));
      sent.push(bus.publish("run:b", "end"));
      await Promise.all(sent);
      const got = await first.next(200);
      expect(got[0]).toEqual({ n: 0, nested: { list: [1, "two", null] } });
      expect(got.map((p) => (p as { n: number }).n)).toEqual(Array.from({ length: 200 }, (_, n) => n));
      expect(await second.next(200)).toEqual(got);
      expect(await other.next(1)).toEqual(["end"]);
      // Each subscriber gets its own copy.
      expect(got[0]).not.toBe(second.received[0]);
      expect(first.received).toHaveLength(200);
    });

    it("carries payloads far over 8000 bytes, multibyte text included, intact", async () => {
      const bus = busOf(await h.open());
      const sub = await collect(bus, "big");
      const big = { text: "é€😀a".repeat(20_000), list: Array.from({ length: 2000 }, (_, i) => ({ i, s: `item ${i}` })) };
      await bus.publish("big", big);
      await bus.publish("big", "small after");
      expect(await sub.next(2)).toEqual([big, "small after"]);
    });

    it("stops delivering after unsubscribe; other subscriptions go on", async () => {
      const bus = busOf(await h.open());
      const gone = await collect(bus, "c");
      const kept = await collect(bus, "c");
      await bus.publish("c", 1);
      await gone.next(1);
      gone.unsubscribe();
      gone.unsubscribe(); // twice is harmless
      await bus.publish("c", 2);
      expect(await kept.next(2)).toEqual([1, 2]);
      expect(gone.received).toEqual([1]);
    });

    it("refuses an empty or overlong channel name", async () => {
      const bus = busOf(await h.open());
      await expect(bus.publish("", 1)).rejects.toThrow(RangeError);
      await expect(bus.subscribe("x".repeat(201), () => undefined)).rejects.toThrow(RangeError);
    });

    if (reach === "database" && h.hasSibling) {
      it("reaches subscribers of another connection over the same data, both ways", async () => {
        const a = await h.open();
        const b = await h.sibling(a);
        const onB = await collect(busOf(b), "shared");
        const onA = await collect(busOf(a), "shared");
        await busOf(a).publish("shared", { from: "a" });
        await busOf(b).publish("shared", { from: "b" });
        expect(await onB.next(2)).toEqual(expect.arrayContaining([{ from: "a" }, { from: "b" }]));
        expect(await onA.next(2)).toEqual(expect.arrayContaining([{ from: "a" }, { from: "b" }]));
      });

      it("does not reach another store's subscribers", async () => {
        const a = await h.open();
        const other = await h.open();
        const foreign = await collect(busOf(other), "isolated");
        const own = await collect(busOf(a), "isolated");
        await busOf(a).publish("isolated", "mine");
        await busOf(other).publish("isolated", "theirs");
        expect(await own.next(1)).toEqual(["mine"]);
        expect(await foreign.next(1)).toEqual(["theirs"]);
      });
    }
  });
}

export function describeSignalsAbsent(h: Harness): void {
  describe("signals (left out by this driver)", () => {
    it("Storage has no signals", async () => {
      expect((await h.open()).signals).toBeUndefined();
    });
  });
}
