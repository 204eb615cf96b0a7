import { Client } from "@langchain/langgraph-sdk";
import { ClientFactory } from "@a2a-js/sdk/client";
import { SendMessageRequest } from "@a2a-js/sdk";
import { randomUUID } from "node:crypto";
const url = process.env.URL!; const n = Number(process.env.N ?? 2000); const which = process.env.OP ?? "sdk";
const client = new Client({ apiUrl: url });
const agent = await new ClientFactory().createFromUrl(`${url}/a2a/echo/`);
const ops: Record<string, () => Promise<unknown>> = {
  thread: () => client.threads.create(),
  ok: () => fetch(`${url}/ok`).then((r) => r.text()),
  info: () => fetch(`${url}/info`).then((r) => r.text()),
  search: () => client.threads.search({ limit: 1 }),
};
const op = ops[which] ?? (which === "sdk" ? async () => { const t = await client.threads.create(); await client.runs.wait(t.thread_id, "echo", { input: { messages: [{ role: "user", content: "hi" }] } }); }
  : async () => { await agent.sendMessage(SendMessageRequest.fromJSON({ message: { role: "ROLE_USER", messageId: randomUUID(), parts: [{ text: "hi" }] } })); });
for (let i = 0; i < 100; i++) await op();
import { readFileSync } from "node:fs";
const cpu = () => { const f = readFileSync(`/proc/${process.env.PID}/stat`, "utf8").split(") ")[1].split(" "); return (Number(f[11]) + Number(f[12])) * 10; };
const c0 = cpu();
const xs: number[] = []; const s0 = performance.now();
for (let i = 0; i < n; i++) { const s = performance.now(); await op(); xs.push(performance.now() - s); }
xs.sort((a, b) => a - b);
console.log(`${which} p50 ${xs[n >> 1].toFixed(2)} p90 ${xs[Math.floor(n * 0.9)].toFixed(2)} ms; total ${(performance.now() - s0).toFixed(0)} ms; server cpu/op ${((cpu() - c0) / n).toFixed(2)} ms`);
