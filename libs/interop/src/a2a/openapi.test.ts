import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium, startTestServer, type TestServer } from "@agent-server/agent-protocol/testing";
import { drivers } from "@agent-server/testing";
import { A2A_DOCUMENTED_ROUTES } from "./openapi.js";
import { a2aRoutes } from "./routes.js";

/**
 * /openapi.json of a server with A2A: the A2A routes are listed under the `A2A` tag beside the LangGraph
 * ones, every documented route is one the server serves, the document holds together (path parameters,
 * references), and Swagger UI at /docs renders the A2A paths in a browser.
 */

type Operation = {
  tags?: string[];
  parameters?: { name: string; in: string; required?: boolean }[];
  requestBody?: unknown;
  responses?: Record<string, unknown>;
};
type Doc = { openapi: string; paths: Record<string, Record<string, Operation>>; components?: { schemas?: Record<string, unknown> } };

let server: TestServer;
let dispose: () => Promise<void>;
let base: string;
let doc: Doc;

beforeAll(async () => {
  const opened = await drivers.find((d) => d.name === "memory")!.open();
  dispose = opened.dispose;
  server = await startTestServer(opened.storage, { app: { extraRoutes: [a2aRoutes] } });
  base = server.url.replace(/\/$/, "");
  doc = (await (await fetch(`${base}/openapi.json`)).json()) as Doc;
});

afterAll(async () => {
  await server?.close();
  await dispose?.();
});

function operations(): [route: string, path: string, operation: Operation][] {
  return Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]): [string, string, Operation] => [`${method.toUpperCase()} ${path}`, path, operation]),
  );
}

describe("/openapi.json with A2A", () => {
  it("lists the card routes, the JSON-RPC endpoint and every HTTP+JSON route under the A2A tag, beside the LangGraph API", () => {
    expect(doc.openapi).toBe("3.1.0");
    const a2a = operations()
      .filter(([, , operation]) => operation.tags?.includes("A2A"))
      .map(([route]) => route);
    expect(a2a.sort()).toEqual(
      [
        "GET /.well-known/agent-card.json",
        "GET /a2a/{assistant_id}/.well-known/agent-card.json",
        "POST /a2a/{assistant_id}",
        "GET /a2a/{assistant_id}/extendedAgentCard",
        "POST /a2a/{assistant_id}/message:send",
        "POST /a2a/{assistant_id}/message:stream",
        "GET /a2a/{assistant_id}/tasks",
        "GET /a2a/{assistant_id}/tasks/{id}",
        "POST /a2a/{assistant_id}/tasks/{id}:cancel",
        "GET /a2a/{assistant_id}/tasks/{id}:subscribe",
        "POST /a2a/{assistant_id}/tasks/{id}:subscribe",
        "POST /a2a/{assistant_id}/tasks/{id}/pushNotificationConfigs",
        "GET /a2a/{assistant_id}/tasks/{id}/pushNotificationConfigs",
        "GET /a2a/{assistant_id}/tasks/{id}/pushNotificationConfigs/{configId}",
        "DELETE /a2a/{assistant_id}/tasks/{id}/pushNotificationConfigs/{configId}",
      ].sort(),
    );
    expect([...A2A_DOCUMENTED_ROUTES].sort()).toEqual(a2a.sort());
    // The LangGraph API is still there, and none of it is tagged A2A.
    for (const route of ["POST /assistants/search", "POST /threads", "POST /threads/{thread_id}/runs/wait", "GET /ok"]) {
      const [method, path] = route.split(" ") as [string, string];
      expect(doc.paths[path]?.[method.toLowerCase()], route).toBeDefined();
      expect(doc.paths[path]![method.toLowerCase()]!.tags ?? []).not.toContain("A2A");
    }
    // The JSON-RPC endpoint documents its envelope and every method of both versions.
    const rpc = doc.paths["/a2a/{assistant_id}"]!.post!;
    expect(JSON.stringify(rpc.requestBody)).toContain("#/components/schemas/A2AJsonRpcRequest");
    const envelope = JSON.stringify(doc.components!.schemas!.A2AJsonRpcRequest);
    for (const method of ["SendMessage", "DeleteTaskPushNotificationConfig", "message/send", "tasks/pushNotificationConfig/delete"]) {
      expect(envelope).toContain(`"${method}"`);
    }
    expect(rpc.parameters).toContainEqual(expect.objectContaining({ name: "A2A-Version", in: "header", required: false }));
  });

  it("holds together: each path's {parameters} are declared on every operation, and every $ref resolves", () => {
    const problems: string[] = [];
    for (const [route, path, operation] of operations()) {
      const inPath = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!).sort();
      const declared = (operation.parameters ?? []).filter((p) => p.in === "path");
      if (JSON.stringify(declared.map((p) => p.name).sort()) !== JSON.stringify(inPath)) problems.push(`${route}: path parameters`);
      if (declared.some((p) => p.required !== true)) problems.push(`${route}: optional path parameter`);
      if (!operation.responses || Object.keys(operation.responses).length === 0) problems.push(`${route}: no responses`);
    }
    const refs = [...JSON.stringify(doc).matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)].map((m) => m[1]!);
    expect(refs.length).toBeGreaterThan(0);
    for (const ref of new Set(refs)) if (!doc.components?.schemas?.[ref]) problems.push(`unresolved $ref ${ref}`);
    expect(problems).toEqual([]);
  });

  it("documents only routes the server serves: none answers the router's not-found", async () => {
    const task = crypto.randomUUID();
    for (const [route, path] of operations().filter(([, , operation]) => operation.tags?.includes("A2A"))) {
      const method = route.split(" ")[0]!;
      const url = base + path.replace("{assistant_id}", "echo").replace("{id}", task).replace("{configId}", "c");
      const response = await fetch(url, {
        method,
        headers: { "A2A-Version": "1.0", "Content-Type": "application/json" },
        ...(method === "POST" ? { body: "{}" } : {}),
      });
      const text = await response.text();
      // The app's fallback says "Not found: <METHOD> <path>"; the HTTP+JSON binding's "no HTTP+JSON route".
      expect(text, route).not.toMatch(/Not found: |no HTTP\+JSON route/);
      expect(response.status, route).toBeLessThan(500);
    }
  });

  it("renders the A2A paths in Swagger UI (/docs) in a browser", async () => {
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      await page.goto(`${base}/docs`, { waitUntil: "load" });
      await page.waitForSelector(".opblock-summary-path", { timeout: 20_000 });
      // Swagger UI puts zero-width spaces before each "/" so paths wrap.
      const text = (await page.locator("#swagger-ui").innerText()).replace(/[\u200b\u00ad]/g, "");
      expect(text).toContain("A2A");
      for (const route of A2A_DOCUMENTED_ROUTES) expect(text, route).toContain(route.split(" ")[1]);
      expect(text).not.toMatch(/Errors?\s+Resolver error|Parser error/);
    } finally {
      await browser.close();
    }
  });
});
