import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "@langchain/langgraph-sdk";
import { Auth } from "@langchain/langgraph-sdk/auth";
import type { Storage } from "@agent-server/core";
import type { Engine } from "@agent-server/engine";
import { startEngine } from "@agent-server/engine/testing";
import { drivers } from "@agent-server/testing";
import type { RunningServer } from "../server.js";
import { startProbeServer } from "../../test/support/probe-server.js";
import { sampleBody, type OpenApiDocument } from "../../test/support/sample-request.js";
import { streamRefusal } from "../../test/support/http.js";

/**
 * Every documented route authorizes before it acts, and applies the filter it gets back.
 * - Under a rule that denies everything, every route except the public meta ones answers 403, and the
 *   first event it raises is the one the official server raises for it.
 * - Under a rule that allows everything but filters on an owner no fixture has, reads, updates and
 *   deletes of the fixtures answer 404 and searches come back empty.
 * Requests are generated from /openapi.json (valid bodies, ids of objects that exist), so a route added
 * later is covered too: it must answer 403, and once it is listed below, with the right event.
 * The servers run in dev mode, so dev-only routes are walked too: /internal/truncate raises no event
 * (none describes it) and is refused whenever custom auth is configured; the last test checks that the
 * fixtures survived every request.
 */
const EXPECTED_EVENTS: Record<string, string[]> = {
  "POST /runs/crons/search": ["crons:search"],
  "POST /runs/crons/count": ["crons:search"],
  "PATCH /runs/crons/{cron_id}": ["crons:update"],
  "DELETE /runs/crons/{cron_id}": ["crons:delete"],
  "POST /runs/crons": ["crons:create"],
  "POST /threads/{thread_id}/runs/crons": ["crons:create"],
  "POST /assistants/search": ["assistants:search"],
  "POST /assistants/count": ["assistants:search"],
  "POST /assistants": ["assistants:create"],
  "GET /assistants/{assistant_id}": ["assistants:read"],
  "PATCH /assistants/{assistant_id}": ["assistants:update"],
  "DELETE /assistants/{assistant_id}": ["assistants:delete"],
  "POST /assistants/{assistant_id}/versions": ["assistants:read"],
  "POST /assistants/{assistant_id}/latest": ["assistants:update"],
  "GET /assistants/{assistant_id}/graph": ["assistants:read"],
  "GET /assistants/{assistant_id}/schemas": ["assistants:read"],
  "GET /assistants/{assistant_id}/subgraphs": ["assistants:read"],
  "GET /assistants/{assistant_id}/subgraphs/{namespace}": ["assistants:read"],
  "POST /threads": ["threads:create"],
  "POST /threads/search": ["threads:search"],
  "POST /threads/count": ["threads:search"],
  "GET /threads/{thread_id}": ["threads:read"],
  "PATCH /threads/{thread_id}": ["threads:update"],
  "DELETE /threads/{thread_id}": ["threads:delete"],
  "POST /threads/{thread_id}/copy": ["threads:read"],
  "POST /threads/prune": ["threads:delete"],
  "GET /threads/{thread_id}/state": ["threads:read"],
  "POST /threads/{thread_id}/state": ["threads:update"],
  "GET /threads/{thread_id}/state/{checkpoint_id}": ["threads:read"],
  "POST /threads/{thread_id}/state/checkpoint": ["threads:read"],
  "GET /threads/{thread_id}/history": ["threads:read"],
  "POST /threads/{thread_id}/history": ["threads:read"],
  "GET /threads/{thread_id}/runs": ["threads:read"],
  "POST /threads/{thread_id}/runs": ["threads:create_run"],
  "POST /threads/{thread_id}/runs/stream": ["threads:create_run"],
  "POST /threads/{thread_id}/runs/wait": ["threads:create_run"],
  "GET /threads/{thread_id}/runs/{run_id}": ["threads:read"],
  "DELETE /threads/{thread_id}/runs/{run_id}": ["threads:delete"],
  "GET /threads/{thread_id}/runs/{run_id}/join": ["threads:read"],
  "GET /threads/{thread_id}/runs/{run_id}/stream": ["threads:read"],
  "GET /runs/{run_id}/stream": ["threads:read"],
  "POST /threads/{thread_id}/runs/{run_id}/cancel": ["threads:update"],
  "POST /runs/cancel": ["threads:update"],
  "POST /runs": ["threads:create_run"],
  "POST /runs/stream": ["threads:create_run"],
  "POST /runs/wait": ["threads:create_run"],
  "POST /runs/batch": ["threads:create_run"],
  "POST /threads/{thread_id}/commands": ["threads:read"],
  "POST /threads/{thread_id}/stream/events": ["threads:read"],
  "GET /threads/{thread_id}/stream/events": ["threads:read"],
  "PUT /store/items": ["store:put"],
  "GET /store/items": ["store:get"],
  "DELETE /store/items": ["store:delete"],
  "POST /store/items/search": ["store:search"],
  "POST /store/namespaces": ["store:list_namespaces"],
  // No auth event describes wiping every user's data: refused under any custom auth, before any event.
  "POST /internal/truncate": [],
};

/** Bodies the schema alone cannot make valid (semantic checks that run before authorization). */
const BODY_OVERRIDES: Record<string, (ids: Record<string, string>) => Record<string, unknown>> = {
  "POST /runs/crons": (ids) => ({ schedule: "0 0 1 1 *", assistant_id: ids.assistant_id }),
  "POST /threads/{thread_id}/runs/crons": (ids) => ({ schedule: "0 0 1 1 *", assistant_id: ids.assistant_id }),
  "POST /runs/cancel": (ids) => ({ thread_id: ids.thread_id, run_ids: [ids.run_id] }),
  "POST /threads/{thread_id}/commands": () => ({ id: 1, method: "state.get", params: { namespace: [] } }),
};

/** Public: served without authentication, nothing to authorize. */
const PUBLIC = new Set(["GET /ok", "GET /ready", "GET /info", "GET /openapi.json", "GET /docs"]);

/**
 * Under a filter that matches none of the fixtures: what each route that reads, changes or deletes an
 * existing object (or lists them) must answer. Creates are left out (they make new objects), and so is
 * the store, whose items carry no metadata to filter on.
 */
/** What a route answers for an object outside the caller's filter. Join streams carry it in an error event. */
const FILTERED: Record<string, "404" | "409" | "empty"> = {
  "POST /runs/crons/search": "empty",
  "POST /runs/crons/count": "empty",
  "PATCH /runs/crons/{cron_id}": "404",
  "DELETE /runs/crons/{cron_id}": "404",
  "POST /threads/{thread_id}/runs/crons": "404",
  "POST /assistants/search": "empty",
  "POST /assistants/count": "empty",
  "GET /assistants/{assistant_id}": "404",
  "PATCH /assistants/{assistant_id}": "404",
  "DELETE /assistants/{assistant_id}": "404",
  "POST /assistants/{assistant_id}/versions": "404",
  "POST /assistants/{assistant_id}/latest": "404",
  "GET /assistants/{assistant_id}/graph": "404",
  "GET /assistants/{assistant_id}/schemas": "404",
  "GET /assistants/{assistant_id}/subgraphs": "404",
  "GET /assistants/{assistant_id}/subgraphs/{namespace}": "404",
  "POST /threads/search": "empty",
  "POST /threads/count": "empty",
  "GET /threads/{thread_id}": "404",
  "PATCH /threads/{thread_id}": "404",
  "DELETE /threads/{thread_id}": "404",
  "POST /threads/{thread_id}/copy": "409",
  "GET /threads/{thread_id}/state": "404",
  "POST /threads/{thread_id}/state": "404",
  "GET /threads/{thread_id}/state/{checkpoint_id}": "404",
  "POST /threads/{thread_id}/state/checkpoint": "404",
  "GET /threads/{thread_id}/history": "404",
  "POST /threads/{thread_id}/history": "404",
  "GET /threads/{thread_id}/runs": "404",
  "POST /threads/{thread_id}/runs": "404",
  "POST /threads/{thread_id}/runs/stream": "404",
  "POST /threads/{thread_id}/runs/wait": "404",
  "GET /threads/{thread_id}/runs/{run_id}": "404",
  "DELETE /threads/{thread_id}/runs/{run_id}": "404",
  "GET /threads/{thread_id}/runs/{run_id}/join": "404",
  "GET /threads/{thread_id}/runs/{run_id}/stream": "404",
  "GET /runs/{run_id}/stream": "404",
  "POST /threads/{thread_id}/runs/{run_id}/cancel": "404",
  "POST /runs/cancel": "404",
  "POST /threads/{thread_id}/stream/events": "404",
  "GET /threads/{thread_id}/stream/events": "404",
};

/** An empty list or a zero count. */
function isEmptyAnswer(body: unknown): boolean {
  if (Array.isArray(body)) return body.length === 0;
  if (typeof body === "number") return body === 0;
  return false;
}

const sqlite = drivers.find((d) => d.name === "sqlite")!;

describe("every route authorizes before acting and applies the filter (SQLite)", () => {
  let storage: Storage;
  let engine: Engine;
  let dispose: () => Promise<void>;
  let open: RunningServer;
  let denied: RunningServer;
  let scoped: RunningServer;
  let events: string[] = [];
  const ids: Record<string, string> = {};

  /** One ready-to-send request per operation of the server's /openapi.json. */
  async function operations(server: RunningServer): Promise<{ route: string; send: () => Promise<Response> }[]> {
    const doc = (await (await fetch(`${server.url}/openapi.json`)).json()) as OpenApiDocument;
    return Object.entries(doc.paths).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, operation]) => {
        const route = `${method.toUpperCase()} ${path}`;
        const url = new URL(
          server.url + path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(ids[name] ?? crypto.randomUUID())),
        );
        for (const param of operation.parameters ?? []) {
          if (param.in === "query" && param.required) url.searchParams.set(param.name, "k");
        }
        const override = BODY_OVERRIDES[route];
        const sampled = sampleBody(doc, operation);
        const body = override ? { ...(sampled as object), ...override(ids) } : sampled;
        const send = () =>
          fetch(url, {
            method: method.toUpperCase(),
            headers: body === undefined ? {} : { "content-type": "application/json" },
            body: body === undefined ? undefined : JSON.stringify(body),
          });
        return { route, send };
      }),
    );
  }

  beforeAll(async () => {
    const opened = await sqlite.open();
    storage = opened.storage;
    dispose = opened.dispose;
    engine = await startEngine(storage);
    open = await startProbeServer(engine, storage, undefined);
    const denyAll = new Auth()
      .authenticate(() => "alice")
      .on("*", ({ event }) => {
        events.push(event);
        return false;
      });
    denied = await startProbeServer(engine, storage, denyAll);
    // Allows everything, but only on objects owned by "nobody": none of the fixtures below.
    scoped = await startProbeServer(
      engine,
      storage,
      new Auth().authenticate(() => "alice").on("*", () => ({ owner: "nobody" })),
    );

    // Real objects, so a route that looks its object up before authorizing still reaches authorize.
    const client = new Client({ apiUrl: open.url });
    const assistant = await client.assistants.create({ graphId: "echo" });
    const thread = await client.threads.create({ graphId: "echo" });
    const run = await client.runs.create(thread.thread_id, "echo", { input: { messages: [{ role: "user", content: "hi" }] } });
    await client.runs.join(thread.thread_id, run.run_id);
    const state = await client.threads.getState(thread.thread_id);
    const cron = await client.crons.create(assistant.assistant_id, { schedule: "0 0 1 1 *", input: {} });
    await client.store.putItem(["x"], "k", { a: 1 });
    Object.assign(ids, {
      assistant_id: assistant.assistant_id,
      thread_id: thread.thread_id,
      run_id: run.run_id,
      checkpoint_id: state.checkpoint.checkpoint_id ?? crypto.randomUUID(),
      cron_id: cron.cron_id,
      namespace: "echo",
    });
  });
  afterAll(async () => {
    await scoped?.close();
    await denied?.close();
    await open?.close();
    await engine?.stop(0);
    await dispose?.();
  });

  it("answers 403 on every non-public route, raising the official event first", async () => {
    const problems: string[] = [];
    let checked = 0;
    for (const { route, send } of await operations(denied)) {
      if (PUBLIC.has(route)) continue;
      events = [];
      const response = await send();
      const text = await response.text();
      checked += 1;
      const expected = EXPECTED_EVENTS[route];
      if (response.status !== 403 && streamRefusal({ status: response.status, text }) !== 403) {
        problems.push(`${route}: ${response.status} ${text.slice(0, 160)} (events: ${events.join(", ") || "none"})`);
      } else if (expected && expected.length === 0 && events.length > 0) {
        problems.push(`${route}: raised ${events.join(", ")}, expected no event`);
      } else if (expected && expected.length > 0 && !expected.includes(events[0] ?? "")) {
        problems.push(`${route}: raised ${events.join(", ") || "no event"}, expected ${expected.join(" or ")}`);
      }
    }
    expect(checked).toBeGreaterThan(Object.keys(EXPECTED_EVENTS).length - 1);
    expect(problems).toEqual([]);
  });

  it("applies the returned filter: objects outside it answer 404 and searches and counts come back empty", async () => {
    const problems: string[] = [];
    let checked = 0;
    for (const { route, send } of await operations(scoped)) {
      const expected = FILTERED[route];
      if (!expected) continue;
      const response = await send();
      const text = await response.text();
      checked += 1;
      const ok =
        expected === "empty"
          ? response.status === 200 && isEmptyAnswer(JSON.parse(text))
          : response.status === Number(expected) || streamRefusal({ status: response.status, text }) === Number(expected);
      if (!ok)
        problems.push(
          `${route}: ${response.status} ${text.slice(0, 160)}, expected ${expected === "empty" ? "an empty answer" : expected}`,
        );
    }
    expect(checked).toBe(Object.keys(FILTERED).length);
    expect(problems).toEqual([]);
  });

  it("leaves the objects untouched after the denied and filtered writes", async () => {
    const client = new Client({ apiUrl: open.url });
    expect((await client.threads.get(ids.thread_id!)).thread_id).toBe(ids.thread_id);
    expect((await client.assistants.get(ids.assistant_id!)).assistant_id).toBe(ids.assistant_id);
    expect((await client.runs.get(ids.thread_id!, ids.run_id!)).run_id).toBe(ids.run_id);
    expect((await client.store.getItem(["x"], "k"))?.value).toEqual({ a: 1 });
  });
});
