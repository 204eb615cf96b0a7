import { Client } from "@langchain/langgraph-sdk";
import type { Operation } from "../measure.js";
import type { RunningServer } from "../servers/running-server.js";
import type { Scenario } from "./scenario.js";

const INPUT = { messages: [{ role: "user", content: "hi" }] };

/** Every operation checks its answer, so a server that fails fast never looks fast. */
export function expectEcho(values: unknown): void {
  const last = (values as { messages?: { content?: unknown }[] } | null)?.messages?.at(-1)?.content;
  if (last !== "echo: hi") throw new Error(`unexpected run result: ${JSON.stringify(values).slice(0, 500)}`);
}

function client(server: RunningServer): Client {
  return new Client({ apiUrl: server.url });
}

export const sdkNewThread: Scenario = {
  id: "sdk-new-thread",
  title: "SDK: new thread + runs.wait",
  protocol: "sdk",
  description:
    "`threads.create()` then `runs.wait(thread, 'echo', { input })` with the official `@langchain/langgraph-sdk` Client, a fresh thread per operation.",
  async setup(server): Promise<Operation> {
    const sdk = client(server);
    return async () => {
      const thread = await sdk.threads.create();
      expectEcho(await sdk.runs.wait(thread.thread_id, "echo", { input: INPUT }));
    };
  },
};

export const sdkLongThread: Scenario = {
  id: "sdk-long-thread",
  title: "SDK: runs.wait on one long thread",
  protocol: "sdk",
  description:
    "`runs.wait` again and again on the same thread, whose message history grows by two messages a run. One thread per lane: at 16 and 64 concurrent, each lane has its own (runs of one thread execute one at a time).",
  async setup(server, lanes): Promise<Operation> {
    const sdk = client(server);
    const threads = await Promise.all(Array.from({ length: lanes }, () => sdk.threads.create()));
    return async (lane) => expectEcho(await sdk.runs.wait(threads[lane]!.thread_id, "echo", { input: INPUT }));
  },
};

export const sdkStreamFirstEvent: Scenario = {
  id: "sdk-stream-first-event",
  title: "SDK: runs.stream, time to first event",
  protocol: "sdk",
  description:
    "On a fresh thread (created first, outside the latency), `runs.stream(thread, 'echo', { streamMode: 'values' })` read to its end; the latency is from the call to the first event. Throughput counts whole operations (thread + complete stream).",
  async setup(server): Promise<Operation> {
    const sdk = client(server);
    return async () => {
      const thread = await sdk.threads.create();
      const started = performance.now();
      let first: number | undefined;
      let last: unknown;
      for await (const chunk of sdk.runs.stream(thread.thread_id, "echo", { input: INPUT, streamMode: "values" })) {
        first ??= performance.now() - started;
        if (chunk.event === "error") throw new Error(`stream error: ${JSON.stringify(chunk.data)}`);
        if (chunk.event === "values") last = chunk.data;
      }
      expectEcho(last);
      if (first === undefined) throw new Error("the stream had no event");
      return first;
    };
  },
};
