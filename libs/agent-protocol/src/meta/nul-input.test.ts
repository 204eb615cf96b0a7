import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestServer } from "../../test/support/index.js";
import { httpDrivers, openServer, rawJson } from "../../test/support/http.js";

/**
 * NUL in an id, name, namespace label or key is bad input on every driver (PostgreSQL text cannot hold
 * it): 422 naming the field, never a 500 from one driver and a success from another. NUL inside JSON
 * values (metadata, input) is fine: drivers store JSON losslessly.
 */
describe.each(httpDrivers)("NUL characters in identifiers on $name", (driver) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await openServer(driver);
  });
  afterAll(() => server.close());

  it("answers 422 for ids, names, labels and keys holding NUL", async () => {
    const u = server.url;
    const cases: Array<[string, string, unknown, RegExp]> = [
      ["GET", "/assistants/%00x", undefined, /^assistant_id/],
      ["POST", "/assistants", { graph_id: "echo", name: "a\u0000b" }, /^name/],
      ["POST", "/assistants", { graph_id: "echo\u0000" }, /^graph_id/],
      ["POST", "/assistants/search", { name: "\u0000" }, /^name/],
      ["POST", "/assistants/count", { graph_id: "\u0000" }, /^graph_id/],
      ["GET", "/assistants/parent/subgraphs/%00", undefined, /^namespace/],
      ["DELETE", "/runs/crons/%00", undefined, /^cron_id/],
      ["POST", "/runs/crons/search", { thread_id: "\u0000" }, /^thread_id/],
      ["POST", "/threads/%00/runs/crons", { assistant_id: "echo", schedule: "* * * * *" }, /^thread_id/],
      ["PUT", "/store/items", { namespace: ["a\u0000"], key: "k", value: {} }, /^namespace\.0/],
      ["PUT", "/store/items", { namespace: ["a"], key: "k\u0000", value: {} }, /^key/],
      ["GET", "/store/items?namespace=a%00&key=k", undefined, /^namespace\.0/],
      ["POST", "/store/items/search", { namespace_prefix: ["a\u0000"] }, /^namespace_prefix\.0/],
      ["POST", "/store/namespaces", { suffix: ["\u0000"] }, /^suffix\.0/],
    ];
    for (const [method, path, body, detail] of cases) {
      const response = await rawJson(`${u}${path}`, method, body);
      expect(response.status, `${method} ${path}`).toBe(422);
      expect((response.json as { detail: string }).detail, `${method} ${path}`).toMatch(detail);
    }
  });

  it("stores NUL inside JSON values unchanged", async () => {
    const { client } = server;
    const created = await client.assistants.create({ graphId: "echo", metadata: { "k\u0000": "v\u0000" } });
    expect(created.metadata).toEqual({ "k\u0000": "v\u0000" });
    expect(await client.assistants.count({ metadata: { "k\u0000": "v\u0000" } })).toBe(1);
    const cron = await client.crons.create("echo", { schedule: "* * * * *", metadata: { "n\u0000": "\u0000" } });
    expect(await client.crons.count({ metadata: { "n\u0000": "\u0000" } })).toBe(1);
    expect((await client.crons.search({ metadata: { "n\u0000": "\u0000" } }))[0]?.cron_id).toBe(cron.cron_id);
    await client.store.putItem(["nul"], "k", { "x\u0000": "y\u0000" });
    expect((await client.store.getItem(["nul"], "k"))?.value).toEqual({ "x\u0000": "y\u0000" });
  });

  it("runs with NUL in run metadata (checkpoint metadata) and filters history by it", async () => {
    const { client } = server;
    const thread = await client.threads.create();
    await client.runs.wait(thread.thread_id, "echo", {
      input: { messages: [{ role: "user", content: "a\u0000b" }] },
      metadata: { "m\u0000": "x\u0000", "a.b": "dot", "": "empty" },
    });
    expect((await client.runs.list(thread.thread_id))[0]?.status).toBe("success");
    for (const metadata of [{ "m\u0000": "x\u0000" }, { "a.b": "dot" }, { "": "empty" }]) {
      const history = await client.threads.getHistory(thread.thread_id, { metadata });
      expect(history.length, JSON.stringify(metadata)).toBeGreaterThan(0);
      for (const state of history) expect(state.metadata).toMatchObject(metadata);
    }
    expect(await client.threads.getHistory(thread.thread_id, { metadata: { "a.b": "other" } })).toEqual([]);
  });
});
