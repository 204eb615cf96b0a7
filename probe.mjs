import { Client } from "@langchain/langgraph-sdk";
const client = new Client({ apiUrl: "http://127.0.0.1:2400" });
const a = await client.assistants.create({ graphId: "agent" });
const thread = await client.threads.create();
await client.runs.wait(thread.thread_id, a.assistant_id, { input: { messages: [{ type: "human", content: "foo" }] }, config: { configurable: { user_id: "123" } }, metadata: {run_metadata: "x"} });
const h = await client.threads.getHistory(thread.thread_id);
console.log(h.length, JSON.stringify(h[0].metadata));
const f = await client.threads.getHistory(thread.thread_id, {metadata: {run_metadata: "x"}});
console.log(f.length);
