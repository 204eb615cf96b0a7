import { Annotation, StateGraph } from "@langchain/langgraph";
import { AsyncBatchedStore, InMemoryStore, type Operation } from "@langchain/langgraph-checkpoint";
import { afterEach, describe, expect, it, vi } from "vitest";
import { promptBatchedStores } from "./batched-store.js";

/** An InMemoryStore that records each `batch` call's operations. */
class RecordingStore extends InMemoryStore {
  readonly batches: Operation[][] = [];
  override async batch<Op extends readonly Operation[]>(operations: Op) {
    this.batches.push([...operations]);
    return super.batch(operations);
  }
}

describe("promptBatchedStores", () => {
  promptBatchedStores();
  afterEach(() => {
    vi.useRealTimers();
  });

  it("stops without waiting for a timer: LangGraph's loop would wait for its next setTimeout(0)", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout"] });
    const batched = new AsyncBatchedStore(new RecordingStore());
    batched.start();
    // With the polling loop, stop() resolves only once a (here frozen) setTimeout fires.
    const stopped = await Promise.race([
      batched.stop().then(() => "stopped"),
      new Promise((resolve) => setImmediate(() => resolve("waiting"))),
    ]);
    expect(stopped).toBe("stopped");
  });

  it("sends the operations queued in one event-loop turn to the store in one batch, in order, and none while idle", async () => {
    const inner = new RecordingStore();
    const batched = new AsyncBatchedStore(inner);
    batched.start();
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(inner.batches).toEqual([]);
    await Promise.all([batched.put(["ns"], "a", { n: 1 }), batched.put(["ns"], "b", { n: 2 })]);
    const [a, listed] = await Promise.all([batched.get(["ns"], "a"), batched.search(["ns"])]);
    await batched.stop();
    expect(a?.value).toEqual({ n: 1 });
    expect(listed.map((item) => item.key).sort()).toEqual(["a", "b"]);
    expect(inner.batches.map((operations) => operations.length)).toEqual([2, 2]);
  });

  it("rejects every operation of a batch the store refused, and later batches still run", async () => {
    const inner = new RecordingStore();
    const batched = new AsyncBatchedStore(inner);
    batched.start();
    const refuse = vi.spyOn(inner, "batch").mockRejectedValueOnce(new Error("store down"));
    const refused = await Promise.allSettled([batched.get(["ns"], "a"), batched.put(["ns"], "a", { n: 1 })]);
    expect(refused.map((outcome) => outcome.status)).toEqual(["rejected", "rejected"]);
    refuse.mockRestore();
    await batched.put(["ns"], "a", { n: 2 });
    expect((await batched.get(["ns"], "a"))?.value).toEqual({ n: 2 });
    await batched.stop();
  });

  it("a graph's nodes read and write the store LangGraph wraps, and the call ends with its writes done", async () => {
    const inner = new RecordingStore();
    const State = Annotation.Root({ seen: Annotation<string> });
    const graph = new StateGraph(State)
      .addNode("write", async (_state, config) => {
        await config.store!.put(["memories"], "m1", { text: "remember" });
        return {};
      })
      .addNode("read", async (_state, config) => ({ seen: (await config.store!.get(["memories"], "m1"))?.value.text as string }))
      .addEdge("__start__", "write")
      .addEdge("write", "read")
      .compile({ store: inner });
    expect(await graph.invoke({})).toEqual({ seen: "remember" });
    expect((await inner.get(["memories"], "m1"))?.value).toEqual({ text: "remember" });
  });
});
