import { LocalSignalBus } from "@agent-server/core";
import { createMemoryStorage } from "@agent-server/storage-memory";
import { afterEach, describe, expect, it } from "vitest";
import { EngineSignals, runChannel } from "../signals/engine-signals.js";
import { StreamHub } from "./stream-hub.js";
import type { StreamEvent } from "./types.js";

/** Two "processes" (hub + signals each) over one bus that reaches both, as PostgreSQL's does. */
async function twoProcesses() {
  const bus = new LocalSignalBus("database");
  const storage = createMemoryStorage();
  const open = async () => {
    const signals = new EngineSignals(bus, (error) => {
      throw error;
    });
    const hub = new StreamHub(storage.events, 60_000, signals, { isLive: async () => true, intervalMs: 60_000 });
    await signals.start({ wake: () => undefined, control: () => "absent", followed: (runId) => hub.followedElsewhere(runId) });
    stops.push(() => signals.stop());
    return { signals, hub };
  };
  return { bus, a: await open(), b: await open() };
}

const stops: (() => void)[] = [];
afterEach(() => {
  for (const stop of stops.splice(0)) stop();
});

/** The event signals published on a run's channel, as any process would hear them. */
async function eventSignals(bus: LocalSignalBus, runId: string): Promise<unknown[]> {
  const heard: unknown[] = [];
  await bus.subscribe(runChannel(runId), (payload) => {
    if ((payload as { kind?: string }).kind === "event") heard.push(payload);
  });
  return heard;
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 10));

describe("StreamHub across processes", () => {
  it("signals a run's events to other processes only once one of them streams it", async () => {
    const { bus, a, b } = await twoProcesses();
    const heard = await eventSignals(bus, "r1");
    await a.hub.publish("r1", "values", { step: 1 }, { resumable: false });
    await tick();
    expect(heard).toHaveLength(0);

    const subscription = b.hub.subscribe("r1");
    await b.hub.ready("r1");
    await a.hub.publish("r1", "values", { step: 2 }, { resumable: false });
    await tick();
    expect(heard).toHaveLength(1);
    const received: StreamEvent[] = [];
    a.hub.end("r1", { status: "success", values: null }, { withValues: false });
    for await (const event of subscription) received.push(event);
    // The event numbering counts the unsent chunk too: ids stay the executor's index in the run's stream.
    expect(received).toEqual([{ id: "1", event: "values", data: { step: 2 } }]);
  });

  it("always signals a resumable run's events (a replaying stream must not miss the next live ones)", async () => {
    const { bus, a } = await twoProcesses();
    const heard = await eventSignals(bus, "r2");
    await a.hub.publish("r2", "values", { step: 1 }, { resumable: true });
    await tick();
    expect(heard).toHaveLength(1);
  });

  it("forgets a remote follow when the run ends here", async () => {
    const { bus, a, b } = await twoProcesses();
    const subscription = b.hub.subscribe("r3");
    await b.hub.ready("r3");
    subscription.close();
    a.hub.end("r3", { status: "success", values: null }, { withValues: false });
    const heard = await eventSignals(bus, "r3");
    await a.hub.publish("r3", "values", { late: true }, { resumable: false });
    await tick();
    expect(heard).toHaveLength(0);
  });
});
