import { createRoute, z } from "@hono/zod-openapi";
import { createRouter } from "../http/router.js";
import { jsonBody, jsonResponse, reply } from "../http/route-helpers.js";
import { stateService, visibleThread } from "./access.js";
import {
  Checkpoint,
  CheckpointParams,
  errorResponses,
  HistoryBody,
  HistoryQuery,
  StateAtCheckpoint,
  StateQuery,
  StateUpdate,
  ThreadParams,
  ThreadState,
} from "./schemas.js";
import { selectStateFields } from "./select.js";

const tags = ["Thread State"];
const { 404: notFoundResponse, 409: conflictResponse, 422: invalidResponse } = errorResponses;
const stateResponse = jsonResponse(ThreadState, "The thread's state");
const historyResponse = jsonResponse(z.array(ThreadState), "Past states, newest first");

/** A thread's state through its graph: current, at a checkpoint, history, and updates. */
export const stateRoutes = createRouter()
  .openapi(
    createRoute({
      method: "get",
      path: "/threads/{thread_id}/state",
      tags,
      summary: "Get the thread's latest state (the empty state before any checkpoint)",
      request: { params: ThreadParams, query: StateQuery },
      responses: { 200: stateResponse, 404: notFoundResponse, 422: invalidResponse },
    }),
    async (c) => {
      const { thread_id } = c.req.valid("param");
      const { subgraphs, select } = c.req.valid("query");
      await visibleThread(c, "read", thread_id);
      const state = await stateService(c).getState(thread_id, { subgraphs });
      return reply(c, selectStateFields(state, select));
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/threads/{thread_id}/state/{checkpoint_id}",
      tags,
      summary: "Get the thread's state at a checkpoint",
      request: { params: CheckpointParams, query: StateQuery },
      responses: { 200: stateResponse, 404: notFoundResponse, 422: invalidResponse },
    }),
    async (c) => {
      const { thread_id, checkpoint_id } = c.req.valid("param");
      const { subgraphs, select } = c.req.valid("query");
      await visibleThread(c, "read", thread_id);
      const state = await stateService(c).getState(thread_id, { checkpoint: { checkpoint_id }, subgraphs });
      return reply(c, selectStateFields(state, select));
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/threads/{thread_id}/state/checkpoint",
      tags,
      summary: "Get the thread's state at a checkpoint (namespace, id, map)",
      request: { params: ThreadParams, body: jsonBody(StateAtCheckpoint) },
      responses: { 200: stateResponse, 404: notFoundResponse, 422: invalidResponse },
    }),
    async (c) => {
      const { thread_id } = c.req.valid("param");
      const { checkpoint, subgraphs, select } = c.req.valid("json");
      await visibleThread(c, "read", thread_id);
      const state = await stateService(c).getState(thread_id, { checkpoint, subgraphs });
      return reply(c, selectStateFields(state, select));
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/threads/{thread_id}/state",
      tags,
      summary: "Update the thread's state as if a node wrote the values",
      description:
        "Applies on top of the latest checkpoint, or forks from the named one. 409 while a run of the thread is pending or running.",
      request: { params: ThreadParams, body: jsonBody(StateUpdate) },
      responses: {
        200: jsonResponse(z.object({ checkpoint: Checkpoint }), "The checkpoint the update wrote"),
        404: notFoundResponse,
        409: conflictResponse,
        422: invalidResponse,
      },
    }),
    async (c) => {
      const { thread_id } = c.req.valid("param");
      const payload = c.req.valid("json");
      const { value } = await visibleThread(c, "update", thread_id, {
        values: payload.values,
        as_node: payload.as_node,
        checkpoint: payload.checkpoint ?? undefined,
        checkpoint_id: payload.checkpoint_id,
      });
      // As the official server merges them: `checkpoint` fields override a bare `checkpoint_id`.
      const checkpoint = { ...(value.checkpoint_id ? { checkpoint_id: value.checkpoint_id } : {}), ...value.checkpoint };
      const result = await stateService(c).updateState(thread_id, {
        values: value.values,
        asNode: value.as_node,
        checkpoint,
      });
      return reply(c, result);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/threads/{thread_id}/history",
      tags,
      summary: "List the thread's past states",
      request: { params: ThreadParams, query: HistoryQuery },
      responses: { 200: historyResponse, 404: notFoundResponse, 422: invalidResponse },
    }),
    async (c) => {
      const { thread_id } = c.req.valid("param");
      const { limit, before, select } = c.req.valid("query");
      await visibleThread(c, "read", thread_id);
      const states = await stateService(c).history(thread_id, { limit, before });
      return reply(
        c,
        states.map((state) => selectStateFields(state, select)),
      );
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/threads/{thread_id}/history",
      tags,
      summary: "List the thread's past states (filters in the body)",
      request: { params: ThreadParams, body: jsonBody(HistoryBody) },
      responses: { 200: historyResponse, 404: notFoundResponse, 422: invalidResponse },
    }),
    async (c) => {
      const { thread_id } = c.req.valid("param");
      const { limit, before, metadata, checkpoint, select } = c.req.valid("json");
      await visibleThread(c, "read", thread_id);
      const beforeId = typeof before === "string" ? before : before?.configurable.checkpoint_id;
      const states = await stateService(c).history(thread_id, { limit, before: beforeId, metadata, checkpoint });
      return reply(
        c,
        states.map((state) => selectStateFields(state, select)),
      );
    },
  );
