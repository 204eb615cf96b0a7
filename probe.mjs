import { Client } from "@langchain/langgraph-sdk";
const client = new Client({ apiUrl: "http://127.0.0.1:2400" });
const thread = await client.threads.create();
await client.runs.wait(thread.thread_id, "agent", { input: { messages: [{ type: "human", content: "foo" }] }, config: { configurable: { user_id: "123" } }, metadata: {run_metadata: "x"} });
const copied = await client.threads.copy(thread.thread_id);
const h = await client.threads.getHistory(thread.thread_id); const hc = await client.threads.getHistory(copied.thread_id);
function diff(a,b,p=""){ if (typeof a!=="object"||a===null||typeof b!=="object"||b===null){ if(JSON.stringify(a)!==JSON.stringify(b)) console.log(p, JSON.stringify(a)?.slice(0,80), "|", JSON.stringify(b)?.slice(0,80)); return;} for(const k of new Set([...Object.keys(a),...Object.keys(b)])) diff(a[k],b[k],p+"."+k);}
for (let i=0;i<h.length;i++) diff(h[i],hc[i],`[${i}]`);
console.log(JSON.stringify(h[0].metadata));
