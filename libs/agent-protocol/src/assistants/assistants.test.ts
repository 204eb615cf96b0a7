import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { systemAssistantId } from "@agent-server/engine";
import type { TestServer } from "../../test/support/index.js";
import { expectHttpError, httpDrivers, openServer, rawJson } from "../../test/support/http.js";

describe.each(httpDrivers)("assistants API on $name", (driver) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await openServer(driver);
  });
  afterAll(() => server.close());

  it("creates, reads (by id and by graph name), updates and deletes an assistant", async () => {
    const { client } = server;
    const created = await client.assistants.create({
      graphId: "echo",
      name: "helper",
      description: "says it back",
      config: { configurable: { tone: "dry" } },
      metadata: { team: "a" },
    });
    expect(created).toMatchObject({
      graph_id: "echo",
      name: "helper",
      description: "says it back",
      version: 1,
      metadata: { team: "a" },
      config: { configurable: { tone: "dry" } },
    });
    expect(await client.assistants.get(created.assistant_id)).toEqual(created);

    const system = await client.assistants.get("echo");
    expect(system).toMatchObject({ assistant_id: systemAssistantId("echo"), name: "echo", metadata: { created_by: "system" } });

    const updated = await client.assistants.update(created.assistant_id, { metadata: { extra: 1 }, name: "helper 2" });
    expect(updated).toMatchObject({ version: 2, name: "helper 2", metadata: { team: "a", extra: 1 } });

    await client.assistants.delete(created.assistant_id);
    await expectHttpError(client.assistants.get(created.assistant_id), 404, /not found/);
    await expectHttpError(client.assistants.delete(created.assistant_id), 404);
  });

  it("honours if_exists: raise -> 409, do_nothing -> the existing assistant", async () => {
    const { client } = server;
    const assistantId = crypto.randomUUID();
    const first = await client.assistants.create({ graphId: "echo", assistantId, name: "first" });
    await expectHttpError(client.assistants.create({ graphId: "echo", assistantId }), 409, /already exists/);
    const again = await client.assistants.create({ graphId: "approval", assistantId, name: "second", ifExists: "do_nothing" });
    expect(again).toEqual(first);
  });

  it("rejects unknown graphs (404) and invalid bodies (422 naming the field)", async () => {
    const { client, url } = server;
    await expectHttpError(client.assistants.create({ graphId: "no-such-graph" }), 404, /Graph "no-such-graph" not found/);
    const created = await client.assistants.create({ graphId: "echo" });
    await expectHttpError(client.assistants.update(created.assistant_id, { graphId: "nope" }), 404, /Graph "nope"/);

    const badId = await rawJson(`${url}/assistants`, "POST", { graph_id: "echo", assistant_id: "not-a-uuid" });
    expect(badId.status).toBe(422);
    expect((badId.json as { detail: string }).detail).toMatch(/^assistant_id/);
    const missing = await rawJson(`${url}/assistants`, "POST", {});
    expect(missing.status).toBe(422);
    expect((missing.json as { detail: string }).detail).toMatch(/^graph_id/);
    const badLimit = await rawJson(`${url}/assistants/search`, "POST", { limit: 0 });
    expect(badLimit.status).toBe(422);
    expect((badLimit.json as { detail: string }).detail).toMatch(/^limit/);
    const badSort = await rawJson(`${url}/assistants/search`, "POST", { sort_by: "color" });
    expect(badSort.status).toBe(422);
    const badVersion = await rawJson(`${url}/assistants/${created.assistant_id}/latest`, "POST", { version: "x" });
    expect(badVersion.status).toBe(422);
    expect((badVersion.json as { detail: string }).detail).toMatch(/^version/);
  });

  it("searches by graph, name and metadata, sorts, selects fields, paginates and counts", async () => {
    const { client } = server;
    const tag = crypto.randomUUID();
    const made = [];
    for (const [graphId, name] of [
      ["echo", "alpha one"],
      ["echo", "beta"],
      ["approval", "alpha two"],
    ] as const) {
      made.push(await client.assistants.create({ graphId, name, metadata: { tag, graph: graphId } }));
    }
    const all = await client.assistants.search({ metadata: { tag }, sortBy: "name", sortOrder: "asc" });
    expect(all.map((a) => a.name)).toEqual(["alpha one", "alpha two", "beta"]);
    const echoOnly = await client.assistants.search({ metadata: { tag }, graphId: "echo" });
    expect(echoOnly.map((a) => a.name).sort()).toEqual(["alpha one", "beta"]);
    const byName = await client.assistants.search({ metadata: { tag }, name: "alpha" });
    expect(byName).toHaveLength(2);
    const selected = await client.assistants.search({ metadata: { tag }, select: ["assistant_id", "name"], limit: 1 });
    expect(Object.keys(selected[0]!).sort()).toEqual(["assistant_id", "name"]);

    const page = await client.assistants.search({ metadata: { tag }, limit: 2, sortBy: "name", sortOrder: "asc", includePagination: true });
    expect(page.assistants.map((a) => a.name)).toEqual(["alpha one", "alpha two"]);
    expect(page.next).toBe("2");
    const last = await client.assistants.search({ metadata: { tag }, limit: 2, offset: 2, includePagination: true });
    expect(last.assistants).toHaveLength(1);
    expect(last.next).toBeNull();

    expect(await client.assistants.count({ metadata: { tag } })).toBe(3);
    expect(await client.assistants.count({ metadata: { tag }, graphId: "approval" })).toBe(1);
    expect(await client.assistants.count({ metadata: { tag }, name: "beta" })).toBe(1);
  });

  it("lists versions, switches the latest version, and 404s unknown ones", async () => {
    const { client } = server;
    const created = await client.assistants.create({ graphId: "echo", name: "v1", metadata: { stage: "one" } });
    await client.assistants.update(created.assistant_id, { name: "v2", metadata: { stage: "two" } });
    await client.assistants.update(created.assistant_id, { name: "v3" });
    const versions = await client.assistants.getVersions(created.assistant_id);
    expect(versions.map((v) => [v.version, v.name])).toEqual([
      [3, "v3"],
      [2, "v2"],
      [1, "v1"],
    ]);
    const filtered = await client.assistants.getVersions(created.assistant_id, { metadata: { stage: "one" } });
    expect(filtered.map((v) => v.version)).toEqual([1]);

    const back = await client.assistants.setLatest(created.assistant_id, 1);
    expect(back).toMatchObject({ version: 1, name: "v1", metadata: { stage: "one" } });
    expect((await client.assistants.get(created.assistant_id)).name).toBe("v1");

    await expectHttpError(client.assistants.setLatest(created.assistant_id, 99), 404, /version 99/);
    await expectHttpError(client.assistants.getVersions(crypto.randomUUID()), 404);
    await expectHttpError(client.assistants.setLatest(crypto.randomUUID(), 1), 404);
  });

  it("deletes the assistant's threads with delete_threads=true", async () => {
    const { client, storage } = server;
    const created = await client.assistants.create({ graphId: "echo" });
    const mine = await storage.threads.create({ thread_id: crypto.randomUUID(), metadata: { assistant_id: created.assistant_id } });
    const other = await storage.threads.create({ thread_id: crypto.randomUUID(), metadata: { assistant_id: "someone-else" } });
    await client.assistants.delete(created.assistant_id, { deleteThreads: true });
    expect(await storage.threads.get(mine.thread_id)).toBeNull();
    expect(await storage.threads.get(other.thread_id)).not.toBeNull();
  });
});
