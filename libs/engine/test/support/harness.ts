import type { Storage } from "@agent-server/core";
import { outboundUrlPolicy } from "../../src/config/webhooks.js";
import { Engine, type EngineOptions } from "../../src/engine.js";
import type { CompiledGraph } from "../../src/graphs/types.js";
import { approvalGraph, chatGraph, echoGraph, failingGraph, parentGraph, slowGraph, toolCallerGraph, whoamiGraph } from "./graphs.js";

/**
 * An engine over `storage` with the test graphs (and `graphs`) registered, tuned for quick tests. Its URL
 * policy is `dev`'s, so webhooks reach receivers on loopback.
 */
export async function startEngine(
  storage: Storage,
  options: Partial<EngineOptions> = {},
  graphs: Record<string, CompiledGraph> = {},
): Promise<Engine> {
  const engine = new Engine({
    storage,
    workers: 4,
    leaseMs: 2000,
    pollMs: 50,
    cronPollMs: 60_000,
    outbox: { pollMs: 50, backoffMs: 50, maxBackoffMs: 200, maxAttempts: 5, timeoutMs: 2000 },
    urlPolicy: outboundUrlPolicy(undefined, "dev"),
    ...options,
  });
  engine.registry.register("echo", echoGraph);
  engine.registry.register("approval", approvalGraph);
  engine.registry.register("slow", slowGraph);
  engine.registry.register("failing", failingGraph);
  engine.registry.register("parent", parentGraph);
  engine.registry.register("whoami", whoamiGraph);
  engine.registry.register("tool-caller", toolCallerGraph);
  engine.registry.register("chat", chatGraph);
  for (const [graphId, graph] of Object.entries(graphs)) engine.registry.register(graphId, graph);
  await engine.start();
  return engine;
}

export async function newThread(storage: Storage): Promise<string> {
  const thread = await storage.threads.create({ thread_id: crypto.randomUUID() });
  return thread.thread_id;
}

/** Polls until `check` holds (state changes that happen on another async path). */
export async function eventually<T>(check: () => Promise<T | undefined | null | false>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (true) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error("condition not reached in time");
    await new Promise((r) => setTimeout(r, 20));
  }
}

export async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of iterable) out.push(item);
  return out;
}
