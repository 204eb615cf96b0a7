import { Hono } from "hono";
import { Auth, HTTPException } from "@langchain/langgraph-sdk/auth";
import { afterEach, describe, expect, it } from "vitest";
import { createMemoryStorage } from "@agent-server/storage-memory";
import { startTestServer, type TestServer } from "../../test/support/index.js";
import type { HttpCorsConfig } from "./cors.js";

const PAGE = "http://page.example:5173";

/** What a browser sends before a cross-origin JSON POST. */
function preflight(url: string, origin = PAGE, requestHeaders = "content-type,x-api-key"): Promise<Response> {
  return fetch(url, {
    method: "OPTIONS",
    headers: { origin, "access-control-request-method": "POST", "access-control-request-headers": requestHeaders },
  });
}

function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, {
    method: "POST",
    headers: { origin: PAGE, "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
}

const exposed = (response: Response) => (response.headers.get("access-control-expose-headers") ?? "").toLowerCase().split(",");

/** An auth that lets nobody in: whatever reaches a route got past it. */
const denyAll = new Auth().authenticate(async () => {
  throw new HTTPException(401, { message: "no credentials" });
});

describe("CORS", () => {
  let server: TestServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  describe("without http.cors (the official default)", () => {
    it("answers a preflight from any origin with every method and the requested headers", async () => {
      server = await startTestServer(createMemoryStorage());
      const response = await preflight(`${server.url}/threads`);
      expect(response.status).toBe(204);
      expect(response.headers.get("access-control-allow-origin")).toBe("*");
      expect(response.headers.get("access-control-allow-methods")?.split(",")).toEqual(
        expect.arrayContaining(["GET", "POST", "PATCH", "DELETE", "PUT"]),
      );
      expect(response.headers.get("access-control-allow-headers")).toBe("content-type,x-api-key");
    });

    it("exposes Content-Location and the pagination headers, and the page can read them", async () => {
      server = await startTestServer(createMemoryStorage());
      const search = await post(`${server.url}/assistants/search`, { limit: 1 });
      expect(search.status).toBe(200);
      expect(search.headers.get("access-control-allow-origin")).toBe("*");
      expect(exposed(search)).toEqual(expect.arrayContaining(["content-location", "x-pagination-total", "x-pagination-next"]));

      const run = await post(`${server.url}/runs/stream`, { assistant_id: "echo", input: { messages: [{ role: "user", content: "hi" }] } });
      expect(run.headers.get("content-type")).toMatch(/^text\/event-stream/);
      expect(run.headers.get("access-control-allow-origin")).toBe("*");
      expect(run.headers.get("content-location")).toMatch(/^\/runs\//);
      expect(exposed(run)).toContain("content-location");
      expect(await run.text()).toContain("echo: hi");
    });

    it("puts the headers on JSON errors: 404, 422, and a 500 from a failing route", async () => {
      const failing = new Hono().get("/boom", () => {
        throw new Error("route failed");
      });
      server = await startTestServer(createMemoryStorage(), { app: { httpApp: failing } });
      const missing = await fetch(`${server.url}/threads/${crypto.randomUUID()}`, { headers: { origin: PAGE } });
      const invalid = await post(`${server.url}/threads`, { if_exists: "sometimes" });
      const unknown = await fetch(`${server.url}/no/such/route`, { headers: { origin: PAGE } });
      const broken = await fetch(`${server.url}/boom`, { headers: { origin: PAGE } });
      for (const [response, status] of [
        [missing, 404],
        [invalid, 422],
        [unknown, 404],
        [broken, 500],
      ] as const) {
        expect(response.status).toBe(status);
        expect(response.headers.get("access-control-allow-origin"), `${status}`).toBe("*");
        expect(await response.json()).toMatchObject({ detail: expect.any(String) });
      }
    });

    it("puts the headers on a custom route's own Response, headers it cannot change included (a redirect)", async () => {
      const custom = new Hono()
        .get("/plain", () => new Response("plain", { headers: { "x-own": "kept" } }))
        .get("/moved", () => Response.redirect("http://elsewhere.example/", 302));
      server = await startTestServer(createMemoryStorage(), { app: { httpApp: custom } });
      const plain = await fetch(`${server.url}/plain`, { headers: { origin: PAGE } });
      expect([plain.headers.get("access-control-allow-origin"), plain.headers.get("x-own"), await plain.text()]).toEqual([
        "*",
        "kept",
        "plain",
      ]);
      const moved = await fetch(`${server.url}/moved`, { headers: { origin: PAGE }, redirect: "manual" });
      expect([moved.status, moved.headers.get("location"), moved.headers.get("access-control-allow-origin")]).toEqual([
        302,
        "http://elsewhere.example/",
        "*",
      ]);
    });

    it("answers a preflight before custom auth; the request itself is still refused, readable by the page", async () => {
      server = await startTestServer(createMemoryStorage(), { app: { auth: denyAll } });
      const response = await preflight(`${server.url}/threads/search`, PAGE, "authorization,content-type");
      expect(response.status).toBe(204);
      expect(response.headers.get("access-control-allow-origin")).toBe("*");
      expect(response.headers.get("access-control-allow-headers")).toBe("authorization,content-type");

      const refused = await post(`${server.url}/threads/search`, {}, { authorization: "Bearer nope" });
      expect(refused.status).toBe(401);
      expect(refused.headers.get("access-control-allow-origin")).toBe("*");
      expect(await refused.json()).toMatchObject({ detail: "no credentials" });
    });
  });

  describe("with http.cors", () => {
    const configured: HttpCorsConfig = {
      allow_origins: [PAGE, "https://studio.example"],
      allow_methods: ["GET", "POST"],
      allow_headers: ["Content-Type", "Authorization"],
      allow_credentials: true,
      expose_headers: ["X-Request-Id", "x-pagination-total"],
      max_age: 600,
    };

    it("answers an allowed origin with its own origin, credentials, max age and the configured lists", async () => {
      server = await startTestServer(createMemoryStorage(), { app: { cors: configured } });
      const response = await preflight(`${server.url}/threads`);
      expect(response.status).toBe(204);
      expect(response.headers.get("access-control-allow-origin")).toBe(PAGE);
      expect(response.headers.get("access-control-allow-credentials")).toBe("true");
      expect(response.headers.get("access-control-max-age")).toBe("600");
      expect(response.headers.get("access-control-allow-methods")).toBe("GET,POST");
      expect(response.headers.get("access-control-allow-headers")).toBe("Content-Type,Authorization");
      expect(response.headers.get("vary")).toMatch(/origin/i);

      const created = await post(`${server.url}/threads`, {});
      expect(created.status).toBe(200);
      expect(created.headers.get("access-control-allow-origin")).toBe(PAGE);
      expect(created.headers.get("access-control-allow-credentials")).toBe("true");
      // The configured headers, plus those the SDK needs, each once.
      expect(exposed(created).sort()).toEqual(["content-location", "x-pagination-next", "x-pagination-total", "x-request-id"]);
    });

    it("gives an origin it does not allow no Access-Control-Allow-Origin, on preflights and requests", async () => {
      server = await startTestServer(createMemoryStorage(), { app: { cors: configured } });
      const response = await preflight(`${server.url}/threads`, "https://evil.example");
      expect(response.headers.get("access-control-allow-origin")).toBeNull();
      const request = await fetch(`${server.url}/ok`, { headers: { origin: "https://evil.example" } });
      expect(request.status).toBe(200);
      expect(request.headers.get("access-control-allow-origin")).toBeNull();
    });

    it("matches allow_origin_regex against the whole origin", async () => {
      server = await startTestServer(createMemoryStorage(), {
        app: { cors: { allow_origin_regex: "https://[a-z0-9-]+\\.preview\\.example" } },
      });
      const allowed = await fetch(`${server.url}/ok`, { headers: { origin: "https://pr-12.preview.example" } });
      expect(allowed.headers.get("access-control-allow-origin")).toBe("https://pr-12.preview.example");
      const suffixed = await fetch(`${server.url}/ok`, { headers: { origin: "https://pr-12.preview.example.evil.io" } });
      expect(suffixed.headers.get("access-control-allow-origin")).toBeNull();
    });

    it('"*" allows any origin; with credentials it names the origin, since browsers refuse "*" there', async () => {
      server = await startTestServer(createMemoryStorage(), { app: { cors: { allow_origins: ["*"] } } });
      expect((await fetch(`${server.url}/ok`, { headers: { origin: PAGE } })).headers.get("access-control-allow-origin")).toBe("*");
      await server.close();
      server = await startTestServer(createMemoryStorage(), { app: { cors: { allow_origins: ["*"], allow_credentials: true } } });
      const response = await fetch(`${server.url}/ok`, { headers: { origin: PAGE } });
      expect(response.headers.get("access-control-allow-origin")).toBe(PAGE);
      expect(response.headers.get("access-control-allow-credentials")).toBe("true");
    });

    it("without allow_origins allows no origin, as the official servers do", async () => {
      server = await startTestServer(createMemoryStorage(), { app: { cors: { max_age: 60 } } });
      const response = await preflight(`${server.url}/threads`);
      expect(response.headers.get("access-control-allow-origin")).toBeNull();
    });
  });
});
