import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { graph as g } from "../../examples/src/echo.js";
import { randomUUID } from "node:crypto";
const saver = SqliteSaver.fromConnString("/tmp/probe/floor.sqlite");
const graph = g.withConfig({}) as typeof g; (graph as any).checkpointer = saver;
const input = { messages: [{ role: "user", content: "hi" }] };
async function time(name: string, op: () => Promise<unknown>) {
  for (let i = 0; i < 200; i++) await op();
  const xs: number[] = [];
  for (let i = 0; i < 1000; i++) { const s = performance.now(); await op(); xs.push(performance.now() - s); }
  xs.sort((a, b) => a - b); console.log(name, xs[500].toFixed(3), "ms p50");
}
await time("invoke", () => graph.invoke(input, { configurable: { thread_id: randomUUID() } }));
await time("stream values", async () => { for await (const _ of await graph.stream(input, { configurable: { thread_id: randomUUID() }, streamMode: ["values"] })); });
await time("streamEvents v2 values", async () => { for await (const _ of graph.streamEvents(input, { version: "v2", configurable: { thread_id: randomUUID() }, streamMode: ["values"] } as never)); });
