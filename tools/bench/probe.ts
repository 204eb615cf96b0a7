// Temporary probe: sequential + concurrent SDK and A2A ops against a running server at $URL.
import { Client } from "@langchain/langgraph-sdk";
import { ClientFactory } from "@a2a-js/sdk/client";
import { SendMessageRequest } from "@a2a-js/sdk";
import { randomUUID } from "node:crypto";
const url = process.env.URL!;
const n = Number(process.env.N ?? 300);
const client = new Client({ apiUrl: url });
const p50 = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];
async function sdkOp() {
  const t = await client.threads.create();
  await client.runs.wait(t.thread_id, "echo", { input: { messages: [{ role: "user", content: "hi" }] } });
}
const agent = await new ClientFactory().createFromUrl(`${url}/a2a/echo/`);
async function a2aOp() {
  await agent.sendMessage(SendMessageRequest.fromJSON({ message: { role: "ROLE_USER", messageId: randomUUID(), parts: [{ text: "hi" }] } }));
}
for (const [name, op] of [["sdk", sdkOp], ["a2a", a2aOp]] as const) {
  for (let i = 0; i < 50; i++) await op();
  const xs: number[] = [];
  for (let i = 0; i < n; i++) { const s = performance.now(); await op(); xs.push(performance.now() - s); }
  let done = 0; const s = performance.now();
  await Promise.all(Array.from({ length: 16 }, async () => { while (done < n) { done++; await op(); } }));
  console.log(`${name} p50 ${p50(xs).toFixed(2)} ms; 16-conc ${(n / ((performance.now() - s) / 1000)).toFixed(1)} ops/s`);
}
