import { Hono } from "hono";

/** A project that serves its own `GET /metrics` (langgraph.json `http.app`). */
export const app = new Hono().get("/metrics", (c) => c.text("# the project's own metrics\nproject_metric 1\n"));
