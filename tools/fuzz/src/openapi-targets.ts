import fc from "fast-check";
import { contentType, hostileSegment, rawBody, type Labeled } from "./hostile-values.js";
import { buildRequest, caller, hostileQueryValue, type FuzzTarget } from "./request-parts.js";
import { fromSchema, mutatedBody, pathParam, type GenContext, type Schema } from "./schema-arbitraries.js";

interface Parameter {
  name: string;
  in: "path" | "query" | "header";
  required?: boolean;
  schema?: Schema;
}

interface Operation {
  tags?: string[];
  parameters?: Parameter[];
  requestBody?: { content?: Record<string, { schema?: Schema }> };
}

export interface OpenApiDocument {
  paths: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, Schema> };
}

/**
 * Runs last: on a server whose dev-only truncate route is open to any user it wipes every resource, so the
 * routes before it keep their seeded world.
 */
const LAST = new Set(["POST /internal/truncate"]);

/**
 * One target per operation of the server's own OpenAPI document, plus one for paths and methods it does not
 * serve. Operations tagged `A2A` are left to a2a-targets.ts, whose targets know the bindings' envelopes,
 * methods and version header (the document only describes them), and `MCP` to mcp-targets.ts likewise.
 */
export function openApiTargets(doc: OpenApiDocument, ctx: GenContext): FuzzTarget[] {
  const targets: FuzzTarget[] = [];
  for (const [template, operations] of Object.entries(doc.paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      if (operation.tags?.includes("A2A") || operation.tags?.includes("MCP")) continue;
      const name = `${method.toUpperCase()} ${template}`;
      targets.push({ name, arbitrary: operationRequests(ctx, method.toUpperCase(), template, operation, name) });
    }
  }
  targets.push({ name: "unrouted paths and methods", arbitrary: unroutedRequests(ctx) });
  return [...targets.filter((t) => !LAST.has(t.name)), ...targets.filter((t) => LAST.has(t.name))];
}

function operationRequests(ctx: GenContext, method: string, template: string, operation: Operation, route: string) {
  const parameters = operation.parameters ?? [];
  const pathParams = parameters.filter((p) => p.in === "path");
  const queryParams = parameters.filter((p) => p.in === "query");
  const bodySchema = operation.requestBody?.content?.["application/json"]?.schema;
  const body = bodySchema
    ? mutatedBody(fromSchema(ctx, bodySchema))
    : // A body where none is expected, now and then.
      fc.oneof({ weight: 8, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: mutatedBody(fromSchema(ctx, {})) });
  return fc
    .record({
      path: fc.tuple(...pathParams.map((p) => pathParam(ctx, p.name).map((v) => [p.name, v] as const))),
      query: queryString(ctx, queryParams),
      body,
      contentType,
      user: caller(ctx.world),
    })
    .map(({ path, query, body, contentType, user }) => {
      let concrete = template;
      for (const [name, value] of path) concrete = concrete.replace(`{${name}}`, value.value);
      return buildRequest({
        method,
        path: concrete + query.value,
        route,
        labels: [
          ...path.filter(([, v]) => v.label !== "own id").map(([name, v]) => `path.${name}=${v.label}`),
          query.label,
          body?.label ?? "",
        ],
        user,
        contentType,
        body,
        sinkUrl: ctx.world.sinkUrl,
      });
    });
}

/** A query string: each declared parameter absent, schema-valid or hostile, plus repeated and unknown ones. */
function queryString(ctx: GenContext, params: Parameter[]): fc.Arbitrary<Labeled<string>> {
  const one = (p: Parameter) =>
    fc.oneof(
      { weight: 2, arbitrary: fc.constant(undefined) },
      {
        weight: 2,
        arbitrary: fromSchema(ctx, p.schema ?? {}, p.name).map((v) => ({
          label: "",
          value: `${p.name}=${encodeURIComponent(typeof v === "string" ? v : JSON.stringify(v))}`,
        })),
      },
      { weight: 1, arbitrary: hostileQueryValue.map((v) => ({ label: `query.${p.name}${v.label}`, value: `${p.name}=${v.value}` })) },
      { weight: 1, arbitrary: fc.constant({ label: `query.${p.name} repeated`, value: `${p.name}=1&${p.name}=2` }) },
    );
  const extra = fc.oneof(
    { weight: 6, arbitrary: fc.constant(undefined) },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom("__proto__[x]=1", "constructor=1", "a=%00", "&&&", "=")
        .map((value) => ({ label: `query ${value}`, value })),
    },
  );
  return fc.tuple(fc.tuple(...params.map(one)), extra).map(([values, more]) => {
    const present = [...values, more].filter((v): v is Labeled<string> => v !== undefined);
    return {
      label: present
        .map((v) => v.label)
        .filter(Boolean)
        .join(", "),
      value: present.length ? `?${present.map((v) => v.value).join("&")}` : "",
    };
  });
}

function unroutedRequests(ctx: GenContext) {
  const own = ctx.world.mine.threadId;
  const paths = fc.oneof(
    fc.constantFrom(
      "/",
      "/../../etc/passwd",
      "//threads",
      "/threads/",
      `/threads/${own}/..%2F..%2Finternal%2Ftruncate`,
      "/threads/%2e%2e/ok",
      "/%00",
      "/a2a",
      "/a2a/",
      "/internal",
      "/store/items/..",
      "/runs/crons/x/y",
      "/assistants/echo/versions/latest",
      "/threads/search?limit=1",
      "/docs",
      "/openapi.json",
      "/.well-known/agent-card.json",
      "/.well-known/agent-card.json?assistant_id=%00",
    ),
    hostileSegment.map((s) => `/threads/${s.value}/${s.value}`),
  );
  return fc
    .record({
      method: fc.constantFrom("GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "HEAD"),
      path: paths,
      body: fc.option(rawBody, { freq: 3 }),
      contentType,
      user: caller(ctx.world),
    })
    .map(({ method, path, body, contentType, user }) =>
      buildRequest({
        method,
        path,
        route: "unrouted paths and methods",
        labels: [`${method} ${path.slice(0, 60)}`, body?.label ?? ""],
        user,
        contentType,
        body: body ? { value: undefined, raw: body.value, isRaw: true } : undefined,
        sinkUrl: ctx.world.sinkUrl,
      }),
    );
}
