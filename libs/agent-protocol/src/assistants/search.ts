import { createRoute, z } from "@hono/zod-openapi";
import type { Metadata } from "@agent-server/core";
import { createRouter } from "../http/router.js";
import { ErrorDetail, jsonBody, jsonResponse, reply } from "../http/route-helpers.js";
import { Assistant, AssistantCount, AssistantSearch } from "./schemas.js";

const tags = ["Assistants"];

/** POST /assistants/search and /assistants/count. */
export const assistantSearch = createRouter()
  .openapi(
    createRoute({
      method: "post",
      path: "/assistants/search",
      tags,
      summary: "Search assistants",
      description:
        "Filters by graph, name substring and metadata containment. Sets X-Pagination-Total, and X-Pagination-Next " +
        "(the offset of the next page) when more results follow, as the SDK's includePagination reads.",
      request: { body: jsonBody(AssistantSearch) },
      responses: {
        200: jsonResponse(z.array(Assistant.partial()), "Matching assistants, with only the selected fields when `select` is given"),
        422: jsonResponse(ErrorDetail, "Invalid request"),
      },
    }),
    async (c) => {
      const body = c.req.valid("json");
      const value: Record<string, unknown> = {
        graph_id: body.graph_id ?? undefined,
        metadata: body.metadata ?? undefined,
        limit: body.limit,
        offset: body.offset,
      };
      const filter = await c.var.auth.authorize("assistants", "search", value);
      const query = {
        graph_id: (value.graph_id as string | undefined) ?? undefined,
        name: body.name ?? undefined,
        metadata: (value.metadata as Metadata | undefined) ?? undefined,
        filter,
      };
      const { storage } = c.var.deps;
      const [found, total] = await Promise.all([
        storage.assistants.search({
          ...query,
          limit: body.limit,
          offset: body.offset,
          sort_by: body.sort_by ?? undefined,
          sort_order: body.sort_order ?? undefined,
        }),
        storage.assistants.count(query),
      ]);
      c.header("X-Pagination-Total", String(total));
      if (body.offset + found.length < total) c.header("X-Pagination-Next", String(body.offset + found.length));
      const select = body.select;
      const rows = select?.length
        ? found.map((a) => Object.fromEntries(Object.entries(a).filter(([key]) => (select as string[]).includes(key))))
        : found;
      return reply(c, rows);
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/assistants/count",
      tags,
      summary: "Count assistants",
      request: { body: jsonBody(AssistantCount) },
      responses: { 200: jsonResponse(z.number().int(), "How many assistants match"), 422: jsonResponse(ErrorDetail, "Invalid request") },
    }),
    async (c) => {
      const body = c.req.valid("json");
      const value: Record<string, unknown> = { graph_id: body.graph_id ?? undefined, metadata: body.metadata ?? undefined };
      const filter = await c.var.auth.authorize("assistants", "search", value);
      const count = await c.var.deps.storage.assistants.count({
        graph_id: (value.graph_id as string | undefined) ?? undefined,
        name: body.name ?? undefined,
        metadata: (value.metadata as Metadata | undefined) ?? undefined,
        filter,
      });
      return reply(c, count);
    },
  );
