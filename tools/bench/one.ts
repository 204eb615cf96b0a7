import { Client } from "@langchain/langgraph-sdk";
const client = new Client({ apiUrl: "http://127.0.0.1:8123" });
for (let i = 0; i < 3; i++) { const t = await client.threads.create();
await client.runs.wait(t.thread_id, "echo", { input: { messages: [{ role: "user", content: "hi" }] } }); }
await new Promise((r) => setTimeout(r, 500));
console.error("SQL MARK");
const t = await client.threads.create();
await client.runs.wait(t.thread_id, "echo", { input: { messages: [{ role: "user", content: "hi" }] } });
await new Promise((r) => setTimeout(r, 300));
console.error("SQL MARK2");
