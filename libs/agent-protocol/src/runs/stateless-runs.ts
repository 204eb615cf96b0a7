import { createRoute, z } from "@hono/zod-openapi";
import { createRouter } from "../http/router.js";
import { wire } from "../http/wire.js";
import { admitting, prepareRun } from "./create.js";
import { createAndStream, createAndWait, createInBackground } from "./respond.js";
import { Detail, json, jsonBody, Run, RunBatchCreate, RunCreate, sseDoc, sent } from "./schemas.js";

const tags = ["Stateless Runs"];
const notFound = json(Detail, "Unknown assistant");
const invalid = json(Detail, "Invalid request");

/**
 * Runs without a thread of the caller's: each gets a temporary thread, deleted when the run ends unless
 * `on_completion: "keep"`.
 */
export const statelessRuns = createRouter()
  .openapi(
    createRoute({
      method: "post",
      path: "/runs",
      tags,
      summary: "Create a background stateless run",
      request: { body: jsonBody(RunCreate) },
      responses: { 200: json(Run, "The created (pending) run"), 404: notFound, 422: invalid },
    }),
    async (c) => sent(await createInBackground(c, undefined, c.req.valid("json"))),
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/runs/stream",
      tags,
      summary: "Create a stateless run and stream its events",
      request: { body: jsonBody(RunCreate) },
      responses: { 200: sseDoc, 404: notFound, 422: invalid },
    }),
    async (c) => sent(await createAndStream(c, undefined, c.req.valid("json"))),
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/runs/wait",
      tags,
      summary: "Create a stateless run and wait for its final values",
      request: { body: jsonBody(RunCreate) },
      responses: { 200: json(z.unknown(), "The final state values, or {__error__} when the run failed"), 404: notFound, 422: invalid },
    }),
    async (c) => sent(await createAndWait(c, undefined, c.req.valid("json"))),
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/runs/batch",
      tags,
      summary: "Create several background stateless runs",
      request: { body: jsonBody(RunBatchCreate) },
      responses: { 200: json(z.array(Run), "The created runs, in request order"), 404: notFound, 422: invalid },
    }),
    async (c) => {
      const { engine } = c.var.deps;
      const created = [];
      // Every body is authorized before any run is admitted, so a denied one creates nothing.
      const prepared = [];
      for (const body of c.req.valid("json")) prepared.push(await prepareRun(c, undefined, body));
      for (const { request, options } of prepared) created.push(await admitting(() => engine.createRun(request, options)));
      return sent(wire(c, created));
    },
  );
