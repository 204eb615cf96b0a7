import { createRoute, z } from "@hono/zod-openapi";
import { createRouter } from "../http/router.js";
import { ErrorDetail, jsonBody, jsonResponse, reply } from "../http/route-helpers.js";
import { admitting, prepareRun } from "./create.js";
import { createAndStream, createAndWait, createInBackground } from "./respond.js";
import { eventStreamResponse, Run, RunBatchCreate, RunCreate, RunStreamQuery } from "./schemas.js";

const tags = ["Stateless Runs"];
const notFound = jsonResponse(ErrorDetail, "Unknown assistant");
const invalid = jsonResponse(ErrorDetail, "Invalid request");

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
      responses: { 200: jsonResponse(Run, "The created (pending) run"), 404: notFound, 422: invalid },
    }),
    (c) => createInBackground(c, undefined, c.req.valid("json")),
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/runs/stream",
      tags,
      summary: "Create a stateless run and stream its events",
      request: { query: RunStreamQuery, body: jsonBody(RunCreate) },
      responses: { 200: eventStreamResponse, 404: notFound, 422: invalid },
    }),
    (c) => createAndStream(c, undefined, c.req.valid("json"), c.req.valid("query")),
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/runs/wait",
      tags,
      summary: "Create a stateless run and wait for its final values",
      request: { body: jsonBody(RunCreate) },
      responses: {
        200: jsonResponse(z.unknown(), "The final state values, or {__error__} when the run failed"),
        404: notFound,
        422: invalid,
      },
    }),
    (c) => createAndWait(c, undefined, c.req.valid("json")),
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/runs/batch",
      tags,
      summary: "Create several background stateless runs",
      request: { body: jsonBody(RunBatchCreate) },
      responses: { 200: jsonResponse(z.array(Run), "The created runs, in request order"), 404: notFound, 422: invalid },
    }),
    async (c) => {
      const { engine } = c.var.deps;
      const created = [];
      // Every body is authorized before any run is admitted, so a denied one creates nothing.
      const prepared = [];
      for (const body of c.req.valid("json")) prepared.push(await prepareRun(c, undefined, body));
      for (const { request, options } of prepared) created.push(await admitting(() => engine.createRun(request, options)));
      return reply(c, created);
    },
  );
