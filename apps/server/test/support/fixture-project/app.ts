import { Hono } from "hono";

/** Custom routes (langgraph.json `http.app`): one of its own, and one shadowing a core route. */
export const app = new Hono()
  .get("/custom/hello", (c) => c.json({ greeting: process.env.FIXTURE_GREETING ?? null }))
  .get("/ok", (c) => c.json({ ok: true, from: "custom app" }));
