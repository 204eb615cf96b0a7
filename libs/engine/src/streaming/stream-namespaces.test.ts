import { describe, expect, it } from "vitest";
import { streamNamespaceFilter } from "./stream-namespaces.js";

const event = (name: string, data: unknown = {}) => ({ event: name, data });
const meta = (checkpointNs: string) => ({ metadata: { langgraph_checkpoint_ns: checkpointNs } });

describe("streamNamespaceFilter", () => {
  it("keeps everything without a namespace parameter", () => {
    expect(streamNamespaceFilter(undefined)).toBeUndefined();
  });

  it("reads a namespace off the event name, and always keeps the run's own events", () => {
    const keep = streamNamespaceFilter(["a:1"])!;
    expect(keep(event("updates|a:1"))).toBe(true);
    expect(keep(event("updates|a:1|b:2"))).toBe(false);
    expect(keep(event("lifecycle|a:1"))).toBe(true);
    expect(keep(event("updates"))).toBe(false);
    for (const own of ["metadata", "error", "end", "feedback"]) expect(keep(event(own))).toBe(true);
    expect(keep(event("error|a:1|b:2"))).toBe(false);
  });

  it("places model tokens and callbacks in the graph their task ran in, partial messages after their metadata", () => {
    const root = streamNamespaceFilter([""])!;
    expect(root(event("messages/metadata", { m1: meta("a:1|model:2") }))).toBe(false);
    expect(root(event("messages/partial", [{ id: "m1", content: "x" }]))).toBe(false);
    expect(root(event("messages/complete", [{ id: "m1" }]))).toBe(false);
    expect(root(event("messages/metadata", { m2: meta("model:3") }))).toBe(true);
    expect(root(event("messages/partial", [{ id: "m2" }]))).toBe(true);
    // A message nobody introduced (an input message) is the root's.
    expect(root(event("messages/complete", [{ id: "m9" }]))).toBe(true);
    expect(root(event("events", { event: "on_chain_start", metadata: {} }))).toBe(true);
    expect(root(event("events", { event: "on_chat_model_start", ...meta("a:1|model:2") }))).toBe(false);

    const child = streamNamespaceFilter(["a:1"])!;
    expect(child(event("messages/metadata", { m1: meta("a:1|model:2") }))).toBe(true);
    expect(child(event("messages/partial", [{ id: "m1" }]))).toBe(true);
  });
});
