import { LocalSignalBus } from "@agent-server/core";
import { describe, expect, it } from "vitest";
import { CONTROL_CHANNEL, EngineSignals, runChannel, WAKE_CHANNEL } from "./engine-signals.js";
import { Peers } from "./peers.js";

const handlers = { wake: () => undefined, control: () => "absent" as const, followed: () => undefined };
const settled = () => new Promise((resolve) => setImmediate(resolve));

/** Everything published on `channel` from now on. */
async function heard(bus: LocalSignalBus, channel: string): Promise<unknown[]> {
  const payloads: unknown[] = [];
  await bus.subscribe(channel, (payload) => payloads.push(payload));
  return payloads;
}

const end = { status: "success" as const, values: undefined } as unknown as Parameters<EngineSignals["end"]>[1];

describe("EngineSignals over a bus other processes hear", () => {
  it("an engine alone publishes no wake-ups nor run ends; once another engine listens it does, both ways", async () => {
    const bus = new LocalSignalBus("database");
    const fail = (error: unknown) => {
      throw error;
    };
    const wakes = await heard(bus, WAKE_CHANNEL);
    const ends = await heard(bus, runChannel("r1"));
    const first = new EngineSignals(bus, fail);
    await first.start(handlers);
    first.wake();
    first.end("r1", end, { withValues: false });
    await settled();
    expect(wakes).toEqual([]);
    expect(ends).toEqual([]);

    const second = new EngineSignals(bus, fail);
    await second.start(handlers);
    await settled();
    first.wake();
    first.end("r1", end, { withValues: false });
    second.wake(); // the newcomer learnt of the first from its answer
    await settled();
    expect(wakes).toEqual([{ origin: first.origin }, { origin: second.origin }]);
    expect(ends).toMatchObject([{ kind: "end", origin: first.origin }]);
    first.stop();
    second.stop();
  });

  it("requests go out even alone: a control signal reaches the bus", async () => {
    const bus = new LocalSignalBus("database");
    const controls = await heard(bus, CONTROL_CHANNEL);
    const alone = new EngineSignals(bus, () => undefined);
    await alone.start(handlers);
    alone.control("r2", "interrupt");
    await settled();
    expect(controls).toEqual([{ origin: alone.origin, runId: "r2", action: "interrupt" }]);
    alone.stop();
  });

  it("a bus of this process only carries nothing", async () => {
    const bus = new LocalSignalBus("process");
    const wakes = await heard(bus, WAKE_CHANNEL);
    const signals = new EngineSignals(bus, () => undefined);
    await signals.start(handlers);
    signals.wake();
    await settled();
    expect(wakes).toEqual([]);
  });
});

describe("Peers", () => {
  it("counts a peer heard within the timeout, and forgets it after", () => {
    let now = 1_000;
    const peers = new Peers(100, () => now);
    expect(peers.any()).toBe(false);
    peers.heard("a");
    now += 100;
    expect(peers.any()).toBe(true);
    now += 1;
    expect(peers.any()).toBe(false);
    peers.heard("a");
    expect(peers.any()).toBe(true);
  });
});
