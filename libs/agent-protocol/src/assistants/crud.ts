import { createRoute, z } from "@hono/zod-openapi";
import { HTTPException } from "hono/http-exception";
import { v4 as uuidv4 } from "uuid";
import { matchesAuthFilter, type AssistantPatch as RepoPatch, type Metadata, type RunnableConfig } from "@agent-server/core";
import { createRouter } from "../http/router.js";
import { ErrorDetail, jsonBody, jsonResponse, reply } from "../http/route-helpers.js";
import { authorizedAssistant, requireLoadedGraph, withoutNulls } from "./access.js";
import { deleteAssistantThreads } from "./delete-threads.js";
import { Assistant, AssistantCreate, AssistantIdParam, AssistantPatch } from "./schemas.js";

const tags = ["Assistants"];
const notFound = jsonResponse(ErrorDetail, "Unknown assistant or graph");
const invalid = jsonResponse(ErrorDetail, "Invalid request");

/** Create, read, update and delete of single assistants. */
export const assistantCrud = createRouter()
  .openapi(
    createRoute({
      method: "post",
      path: "/assistants",
      tags,
      summary: "Create an assistant",
      request: { body: jsonBody(AssistantCreate) },
      responses: {
        200: jsonResponse(Assistant, "The created assistant (or the existing one, with if_exists=do_nothing)"),
        404: notFound,
        409: jsonResponse(ErrorDetail, "The assistant already exists"),
        422: invalid,
      },
    }),
    async (c) => {
      const body = c.req.valid("json");
      const ifExists = body.if_exists ?? "raise";
      const value: Record<string, unknown> = {
        assistant_id: body.assistant_id ?? uuidv4(),
        graph_id: body.graph_id,
        config: body.config ?? {},
        context: body.context ?? {},
        metadata: body.metadata ?? {},
        if_exists: ifExists,
        name: body.name ?? "Untitled",
        description: body.description ?? null,
      };
      const filter = await c.var.auth.authorize("assistants", "create", value);
      const assistantId = String(value.assistant_id);
      const graphId = String(value.graph_id);
      requireLoadedGraph(c, graphId);
      const { storage } = c.var.deps;
      const existing = await storage.assistants.get(assistantId);
      if (existing) {
        // As the official server: an existing assistant outside the caller's scope is a conflict, never revealed.
        if (ifExists === "raise" || !matchesAuthFilter(existing.metadata, filter)) {
          throw new HTTPException(409, { message: `Assistant "${assistantId}" already exists` });
        }
        return reply(c, existing);
      }
      const created = await storage.assistants.create(
        {
          assistant_id: assistantId,
          graph_id: graphId,
          name: String(value.name),
          description: (value.description as string | null) ?? null,
          config: (value.config as RunnableConfig) ?? {},
          context: value.context,
          metadata: (value.metadata as Metadata) ?? {},
        },
        { ifExists },
      );
      return reply(c, created);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/assistants/{assistant_id}",
      tags,
      summary: "Get an assistant",
      request: { params: AssistantIdParam },
      responses: { 200: jsonResponse(Assistant, "The assistant"), 404: notFound },
    }),
    async (c) => {
      const { assistant } = await authorizedAssistant(c, c.req.valid("param").assistant_id, "read");
      return reply(c, assistant);
    },
  )
  .openapi(
    createRoute({
      method: "patch",
      path: "/assistants/{assistant_id}",
      tags,
      summary: "Update an assistant (writes a new version)",
      request: { params: AssistantIdParam, body: jsonBody(AssistantPatch) },
      responses: { 200: jsonResponse(Assistant, "The updated assistant"), 404: notFound, 422: invalid },
    }),
    async (c) => {
      const patch = withoutNulls(c.req.valid("json") as Record<string, unknown> & z.infer<typeof AssistantPatch>);
      const { assistant, value } = await authorizedAssistant(c, c.req.valid("param").assistant_id, "update", { ...patch });
      if (patch.graph_id !== undefined) requireLoadedGraph(c, patch.graph_id);
      const changes: RepoPatch = {
        graph_id: patch.graph_id,
        name: patch.name,
        description: patch.description,
        config: patch.config as RunnableConfig | undefined,
        context: patch.context,
        // The auth handler may have added to the metadata (e.g. an owner); it wins over the request's.
        metadata: (value.metadata as Metadata | undefined) ?? undefined,
      };
      const updated = await c.var.deps.storage.assistants.update(assistant.assistant_id, withoutNulls({ ...changes }));
      if (!updated) throw new HTTPException(404, { message: `Assistant "${assistant.assistant_id}" not found` });
      return reply(c, updated);
    },
  )
  .openapi(
    createRoute({
      method: "delete",
      path: "/assistants/{assistant_id}",
      tags,
      summary: "Delete an assistant, its versions and crons",
      description:
        "Runs made with the assistant stay, whoever made them (they belong to their threads), with their results; " +
        "their threads' state and history still project from the graph they ran. With delete_threads=true, the threads " +
        "whose metadata.assistant_id is the assistant and that the caller may delete (threads:delete) go too, with their runs.",
      request: {
        params: AssistantIdParam,
        query: z.object({
          delete_threads: z
            .enum(["true", "false"])
            .optional()
            .transform((raw) => raw === "true")
            .openapi({ description: "Also delete the threads whose metadata.assistant_id is this assistant." }),
        }),
      },
      responses: { 200: jsonResponse(z.array(z.string()), "Ids of the deleted assistants"), 404: notFound },
    }),
    async (c) => {
      const { assistant } = await authorizedAssistant(c, c.req.valid("param").assistant_id, "delete");
      if (c.req.valid("query").delete_threads) await deleteAssistantThreads(c, assistant.assistant_id);
      if (!(await c.var.deps.storage.assistants.delete(assistant.assistant_id))) {
        throw new HTTPException(404, { message: `Assistant "${assistant.assistant_id}" not found` });
      }
      return reply(c, [assistant.assistant_id]);
    },
  );
