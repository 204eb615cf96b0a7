import { createRoute, z } from "@hono/zod-openapi";
import { HTTPException } from "hono/http-exception";
import { matchesAuthFilter } from "@agent-server/core";
import { createRouter } from "../http/router.js";
import { ErrorDetail, jsonBody, jsonResponse, reply } from "../http/route-helpers.js";
import { authorizedAssistant } from "./access.js";
import { Assistant, AssistantIdParam, AssistantLatest, AssistantVersion, AssistantVersionsQuery } from "./schemas.js";

const tags = ["Assistants"];

/** POST /assistants/{id}/versions (list) and /assistants/{id}/latest (make a version current). */
export const assistantVersions = createRouter()
  .openapi(
    createRoute({
      method: "post",
      path: "/assistants/{assistant_id}/versions",
      tags,
      summary: "List an assistant's versions, newest first",
      request: { params: AssistantIdParam, body: jsonBody(AssistantVersionsQuery) },
      responses: {
        200: jsonResponse(z.array(AssistantVersion), "The versions"),
        404: jsonResponse(ErrorDetail, "Unknown assistant"),
        422: jsonResponse(ErrorDetail, "Invalid request"),
      },
    }),
    async (c) => {
      const body = c.req.valid("json");
      const { assistant, filter } = await authorizedAssistant(c, c.req.valid("param").assistant_id, "read");
      const versions = await c.var.deps.storage.assistants.listVersions(assistant.assistant_id, {
        metadata: body.metadata ?? undefined,
        limit: body.limit,
        offset: body.offset,
      });
      // Versions carry their own metadata; the caller's scope applies to each, as in the official server.
      return reply(
        c,
        versions.filter((v) => matchesAuthFilter(v.metadata, filter)),
      );
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/assistants/{assistant_id}/latest",
      tags,
      summary: "Make one of the assistant's versions the current one",
      request: { params: AssistantIdParam, body: jsonBody(AssistantLatest) },
      responses: {
        200: jsonResponse(Assistant, "The assistant at that version"),
        404: jsonResponse(ErrorDetail, "Unknown assistant or version"),
        422: jsonResponse(ErrorDetail, "Invalid request"),
      },
    }),
    async (c) => {
      const { version } = c.req.valid("json");
      const { assistant } = await authorizedAssistant(c, c.req.valid("param").assistant_id, "update", { version });
      const updated = await c.var.deps.storage.assistants.setLatest(assistant.assistant_id, version);
      if (!updated) throw new HTTPException(404, { message: `Assistant "${assistant.assistant_id}" has no version ${version}` });
      return reply(c, updated);
    },
  );
