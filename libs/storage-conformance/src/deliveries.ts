import { describe, expect, it } from "vitest";
import { addMs, type Delivery } from "@agent-server/core";
import { ISO_MS, sleep, uid, type Harness } from "./harness.js";

export function describeDeliveries(h: Harness): void {
  describe("deliveries (outbox)", () => {
    it("enqueue fills defaults and stores the payload; get; unknown id is null", async () => {
      const s = await h.open();
      const before = new Date().toISOString();
      const d = await s.deliveries.enqueue({
        delivery_id: uid(),
        kind: "webhook",
        url: "http://127.0.0.1:9/hook",
        payload: { run: { id: 1 } },
      });
      expect(d).toEqual({
        delivery_id: d.delivery_id,
        kind: "webhook",
        url: "http://127.0.0.1:9/hook",
        headers: {},
        payload: { run: { id: 1 } },
        run_id: null,
        status: "pending",
        attempts: 0,
        next_attempt_at: expect.stringMatching(ISO_MS),
        last_error: null,
        created_at: expect.stringMatching(ISO_MS),
        updated_at: expect.stringMatching(ISO_MS),
      });
      expect(d.next_attempt_at >= before).toBe(true);
      expect(await s.deliveries.get(d.delivery_id)).toEqual(d);
      expect(await s.deliveries.get(uid())).toBeNull();
      const runId = uid();
      const push = await s.deliveries.enqueue({
        delivery_id: uid(),
        kind: "a2a_push",
        url: "https://example.test/push",
        headers: { authorization: "Bearer t" },
        payload: ["x"],
        run_id: runId,
        next_attempt_at: "2030-01-01T00:00:00.000Z",
      });
      expect(push).toMatchObject({
        kind: "a2a_push",
        headers: { authorization: "Bearer t" },
        payload: ["x"],
        run_id: runId,
        next_attempt_at: "2030-01-01T00:00:00.000Z",
      });
    });

    it("claimDue leases due deliveries oldest first; a claimed delivery is not claimed again until the lease ends", async () => {
      const s = await h.open();
      const now = new Date().toISOString();
      const mk = async (offset: number) =>
        (
          await s.deliveries.enqueue({
            delivery_id: uid(),
            kind: "webhook",
            url: "http://x",
            payload: { offset },
            next_attempt_at: addMs(now, offset),
          })
        ).delivery_id;
      const second = await mk(-1_000);
      const first = await mk(-5_000);
      const future = await mk(60_000);
      const claimed = await s.deliveries.claimDue({ now, limit: 10, leaseMs: 30_000 });
      expect(claimed.map((d) => d.delivery_id)).toEqual([first, second]);
      for (const d of claimed) expect(d).toMatchObject({ status: "pending", attempts: 1, next_attempt_at: addMs(now, 30_000) });
      expect(await s.deliveries.claimDue({ now, limit: 10, leaseMs: 30_000 })).toEqual([]);
      expect(await s.deliveries.claimDue({ now: addMs(now, 29_999), limit: 10, leaseMs: 30_000 })).toEqual([]);
      // After the lease (and once `future` is due), all three come back, oldest due first: the two
      // re-leased ones (both due at the lease end) before `future`.
      const later = addMs(now, 60_000);
      const again = await s.deliveries.claimDue({ now: later, limit: 2, leaseMs: 1_000 });
      expect(again.map((d) => d.delivery_id).sort()).toEqual([first, second].sort());
      for (const d of again) expect(d.attempts).toBe(2);
      expect((await s.deliveries.claimDue({ now: later, limit: 2, leaseMs: 1_000 })).map((d) => d.delivery_id)).toEqual([future]);
    });

    it("concurrent claimDue calls never hand out the same delivery", async () => {
      const s = await h.open();
      const other = h.hasSibling ? await h.sibling(s) : s;
      const now = new Date().toISOString();
      const ids: string[] = [];
      for (let i = 0; i < 10; i++) {
        ids.push(
          (
            await s.deliveries.enqueue({
              delivery_id: uid(),
              kind: "webhook",
              url: "http://x",
              payload: i,
              next_attempt_at: addMs(now, -i),
            })
          ).delivery_id,
        );
      }
      const batches = await Promise.all(
        Array.from({ length: 6 }, (_, i) => (i % 2 ? other : s).deliveries.claimDue({ now, limit: 3, leaseMs: 60_000 })),
      );
      const claimed = batches.flat().map((d: Delivery) => d.delivery_id);
      expect(new Set(claimed).size).toBe(claimed.length);
      expect([...claimed].sort()).toEqual([...ids].sort());
    });

    it("markDelivered / markFailed clear the payload; markRetry keeps it pending; purgeFinished removes finished ones", async () => {
      const s = await h.open();
      const mk = async () =>
        (await s.deliveries.enqueue({ delivery_id: uid(), kind: "webhook", url: "http://x", payload: { secret: "p" } })).delivery_id;
      const delivered = await mk();
      const failed = await mk();
      const retried = await mk();
      await s.deliveries.claimDue({ now: new Date().toISOString(), limit: 10, leaseMs: 60_000 });
      await s.deliveries.markDelivered(delivered);
      expect(await s.deliveries.get(delivered)).toMatchObject({ status: "delivered", payload: null, attempts: 1 });
      await s.deliveries.markFailed(failed, "HTTP 500");
      expect(await s.deliveries.get(failed)).toMatchObject({ status: "failed", payload: null, last_error: "HTTP 500" });
      const at = "2031-01-01T00:00:00.000Z";
      await s.deliveries.markRetry(retried, { nextAttemptAt: at, error: "timeout" });
      expect(await s.deliveries.get(retried)).toMatchObject({
        status: "pending",
        payload: { secret: "p" },
        next_attempt_at: at,
        last_error: "timeout",
      });
      expect(await s.deliveries.claimDue({ now: "2030-12-31T23:59:59.999Z", limit: 10, leaseMs: 1 })).toEqual([]);
      expect((await s.deliveries.claimDue({ now: at, limit: 10, leaseMs: 1 })).map((d) => d.delivery_id)).toEqual([retried]);
      // Unknown ids are a no-op.
      await s.deliveries.markDelivered(uid());
      await s.deliveries.markRetry(uid(), { nextAttemptAt: at, error: "x" });
      await s.deliveries.markFailed(uid(), "x");

      const cutoffBefore = new Date(Date.now() - 60_000).toISOString();
      expect(await s.deliveries.purgeFinished(cutoffBefore)).toBe(0);
      await sleep(2);
      expect(await s.deliveries.purgeFinished(new Date().toISOString())).toBe(2);
      expect(await s.deliveries.get(delivered)).toBeNull();
      expect(await s.deliveries.get(failed)).toBeNull();
      expect(await s.deliveries.get(retried)).not.toBeNull();
    });
  });
}
