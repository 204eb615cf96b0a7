import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { Assistant } from "@agent-server/core";
import type { CompiledGraph, GraphSchemaSet } from "@agent-server/engine";
import type { AppEnv } from "../app-env.js";
import { createRouter } from "../http/router.js";
import { ErrorDetail, jsonResponse, reply, text } from "../http/route-helpers.js";
import { authorizedAssistant } from "./access.js";
import { AssistantIdParam, DrawableGraph, GraphSchemas, JsonSchemaOrNull, RecurseQuery, XrayQuery } from "./schemas.js";

const tags = ["Assistants"];
const notFound = jsonResponse(ErrorDetail, "Unknown assistant, graph or subgraph namespace");

/** The assistant's graph, built with the assistant's config (a graph factory sees it, as in a run). */
async function assistantGraph(c: Context<AppEnv>, assistant: Assistant): Promise<CompiledGraph> {
  return c.var.deps.engine.registry.get(assistant.graph_id, assistant.config);
}

function schemasReply(graphId: string, schemas: GraphSchemaSet) {
  return {
    graph_id: graphId,
    input_schema: schemas.input,
    output_schema: schemas.output,
    state_schema: schemas.state,
    config_schema: schemas.config,
    // LangGraph.js cannot tell a context schema from a config schema; the official server reports the
    // config schema for both, and so do we.
    context_schema: schemas.config,
  };
}

async function subgraphs(c: Context<AppEnv>, assistantId: string, namespace: string | undefined, recurse: boolean) {
  const { assistant } = await authorizedAssistant(c, assistantId, "read");
  const graph = await assistantGraph(c, assistant);
  const result: Record<string, unknown> = {};
  // Keyed `state`, `input`, `output`, `config` (not `*_schema`), as the official server answers here.
  for await (const [ns, subgraph] of graph.getSubgraphsAsync(namespace, recurse)) {
    const schemas = await c.var.deps.engine.registry.subgraphSchemas(assistant.graph_id, ns, subgraph as CompiledGraph);
    // The SDK's GraphSchema keys, and the official JS server's own (state, input, output, config).
    result[ns] = { ...schemasReply(assistant.graph_id, schemas), ...schemas };
  }
  return result;
}

const SubgraphSchemas = GraphSchemas.extend({
  state: JsonSchemaOrNull.openapi({ description: "Same as state_schema (the official JS server's key)" }),
  input: JsonSchemaOrNull.openapi({ description: "Same as input_schema (the official JS server's key)" }),
  output: JsonSchemaOrNull.openapi({ description: "Same as output_schema (the official JS server's key)" }),
  config: JsonSchemaOrNull.openapi({ description: "Same as config_schema (the official JS server's key)" }),
}).openapi("SubgraphSchemas");
const Subgraphs = z.record(z.string(), SubgraphSchemas).openapi("Subgraphs");

/** Graph introspection: drawable graph, JSON schemas, subgraphs. */
export const assistantGraphRoutes = createRouter()
  .openapi(
    createRoute({
      method: "get",
      path: "/assistants/{assistant_id}/graph",
      tags,
      summary: "The assistant's graph as drawable JSON (nodes and edges)",
      request: { params: AssistantIdParam, query: XrayQuery },
      responses: { 200: jsonResponse(DrawableGraph, "Nodes and edges"), 404: notFound, 422: jsonResponse(ErrorDetail, "Invalid xray") },
    }),
    async (c) => {
      const { assistant } = await authorizedAssistant(c, c.req.valid("param").assistant_id, "read");
      const { xray } = c.req.valid("query");
      const graph = await assistantGraph(c, assistant);
      // xray: how many levels of subgraphs to draw inline (true: all).
      const drawable = await graph.getGraphAsync({ ...assistant.config, xray } as Parameters<CompiledGraph["getGraphAsync"]>[0]);
      return reply(c, drawable.toJSON());
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/assistants/{assistant_id}/schemas",
      tags,
      summary: "JSON schemas of the graph's input, output, state, config and context",
      description:
        "StateSchema and zod states are read at run time; Annotation.Root states from the graph's TypeScript types " +
        "(extracted at server start and kept across restarts; a request made while that runs waits for it). " +
        "Null where neither is possible.",
      request: { params: AssistantIdParam },
      responses: { 200: jsonResponse(GraphSchemas, "The schemas"), 404: notFound },
    }),
    async (c) => {
      const { assistant } = await authorizedAssistant(c, c.req.valid("param").assistant_id, "read");
      const graph = await assistantGraph(c, assistant);
      // Waits for source schemas still being extracted, as the official server does (docs/engine.md#graph-schemas).
      return reply(c, schemasReply(assistant.graph_id, await c.var.deps.engine.registry.schemas(assistant.graph_id, graph)));
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/assistants/{assistant_id}/subgraphs",
      tags,
      summary: "Schemas of the graph's subgraphs, keyed by namespace",
      request: { params: AssistantIdParam, query: RecurseQuery },
      responses: { 200: jsonResponse(Subgraphs, "Subgraph schemas"), 404: notFound },
    }),
    async (c) => {
      const { recurse } = c.req.valid("query");
      return reply(c, await subgraphs(c, c.req.valid("param").assistant_id, undefined, recurse));
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/assistants/{assistant_id}/subgraphs/{namespace}",
      tags,
      summary: "Schemas of the subgraphs under one namespace",
      request: {
        params: AssistantIdParam.extend({
          namespace: text()
            .min(1)
            .openapi({ param: { name: "namespace", in: "path" } }),
        }),
        query: RecurseQuery,
      },
      responses: { 200: jsonResponse(Subgraphs, "Subgraph schemas"), 404: notFound },
    }),
    async (c) => {
      const { assistant_id, namespace } = c.req.valid("param");
      return reply(c, await subgraphs(c, assistant_id, namespace, c.req.valid("query").recurse));
    },
  );
