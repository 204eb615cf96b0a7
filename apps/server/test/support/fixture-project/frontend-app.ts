import { Client } from "@langchain/langgraph-sdk";
import { Hono } from "hono";

let lastWebhook: unknown = null;

/**
 * Custom routes of a project with a frontend: one that calls this server through `new Client()` (no
 * apiUrl: the server's in-process fetch), and a receiver for the relative webhook "/custom/webhook".
 */
export const app = new Hono()
  .get("/custom/client", async (c) => {
    const values = await new Client().runs.wait(null, "echo", { input: { messages: [{ role: "user", content: "from a custom route" }] } });
    return c.json({ values });
  })
  .post("/custom/webhook", async (c) => {
    lastWebhook = await c.req.json();
    return c.json({ status: "success" });
  })
  .get("/custom/webhook", (c) => c.json(lastWebhook));
