import { it } from "vitest";
import { drivers } from "@agent-server/testing";
import { openServer } from "../http/test-support.js";
import { ok, readSse, terminals, RawSocket } from "./test-support.js";

it("scratch", async () => {
  const server = await openServer(drivers.find((d) => d.name === "memory")!);
  const tid = crypto.randomUUID();
  await ok(server.url, tid, "run.start", { assistant_id: "echo", input: { messages: [{ role: "user", content: "x" }] } });
  const { events } = await readSse(server.url, tid, { channels: ["lifecycle"] }, terminals(1));
  for (const e of events) console.log(e.seq, e.method, JSON.stringify(e.params));
  const s = await RawSocket.open(server.url, tid);
  console.log(JSON.stringify(await s.command("subscription.subscribe", { channels: ["lifecycle"] })));
  await new Promise((r) => setTimeout(r, 500));
  console.log(JSON.stringify(s.frames));
  await s.close();
  await server.close();
});
