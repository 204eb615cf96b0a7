import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestServer } from "../../test/support/index.js";
import { expectHttpError, httpDrivers, openServer, rawJson } from "../../test/support/http.js";

describe.each(httpDrivers)("store API on $name", (driver) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await openServer(driver);
  });
  afterAll(() => server.close());

  it("puts, gets, replaces and deletes items", async () => {
    const { client } = server;
    const ns = ["users", crypto.randomUUID(), "prefs"];
    await client.store.putItem(ns, "theme", { color: "dark", size: 3 });
    const item = await client.store.getItem(ns, "theme");
    expect(item).toMatchObject({ namespace: ns, key: "theme", value: { color: "dark", size: 3 } });
    expect(item?.createdAt).toMatch(/^\d{4}-\d\d-\d\dT/);

    await client.store.putItem(ns, "theme", { color: "light" });
    const replaced = await client.store.getItem(ns, "theme");
    expect(replaced?.value).toEqual({ color: "light" });
    expect(replaced?.createdAt).toBe(item?.createdAt);

    await client.store.deleteItem(ns, "theme");
    expect(await client.store.getItem(ns, "theme")).toBeNull();
    // Deleting what is not there is not an error, as in LangGraph's stores.
    await client.store.deleteItem(ns, "theme");
  });

  it("searches under a prefix with filters and pages, newest update first", async () => {
    const { client } = server;
    const root = crypto.randomUUID();
    await client.store.putItem([root, "a"], "one", { kind: "x", n: 1 });
    await client.store.putItem([root, "a"], "two", { kind: "y", n: 2 });
    await client.store.putItem([root, "b"], "three", { kind: "x", n: 3 });
    const all = await client.store.searchItems([root]);
    expect(all.items.map((i) => i.key)).toEqual(["three", "two", "one"]);
    const underA = await client.store.searchItems([root, "a"]);
    expect(underA.items.map((i) => i.key).sort()).toEqual(["one", "two"]);
    const xs = await client.store.searchItems([root], { filter: { kind: "x" } });
    expect(xs.items.map((i) => i.key)).toEqual(["three", "one"]);
    const big = await client.store.searchItems([root], { filter: { n: { $gte: 2 } } });
    expect(big.items.map((i) => i.key)).toEqual(["three", "two"]);
    const paged = await client.store.searchItems([root], { limit: 1, offset: 1 });
    expect(paged.items.map((i) => i.key)).toEqual(["two"]);
    expect(paged.items[0]).toMatchObject({ namespace: [root, "a"], value: { kind: "y", n: 2 } });
  });

  it("lists namespaces by prefix, suffix (with wildcards) and depth", async () => {
    const { client } = server;
    const root = crypto.randomUUID();
    await client.store.putItem([root, "docs", "v1"], "k", { a: 1 });
    await client.store.putItem([root, "docs", "v2"], "k", { a: 1 });
    await client.store.putItem([root, "img", "v1"], "k", { a: 1 });
    const all = await client.store.listNamespaces({ prefix: [root] });
    expect(all.namespaces).toEqual([
      [root, "docs", "v1"],
      [root, "docs", "v2"],
      [root, "img", "v1"],
    ]);
    expect((await client.store.listNamespaces({ prefix: [root], suffix: ["v1"] })).namespaces).toEqual([
      [root, "docs", "v1"],
      [root, "img", "v1"],
    ]);
    expect((await client.store.listNamespaces({ prefix: [root, "*", "v2"] })).namespaces).toEqual([[root, "docs", "v2"]]);
    expect((await client.store.listNamespaces({ prefix: [root], maxDepth: 2 })).namespaces).toEqual([
      [root, "docs"],
      [root, "img"],
    ]);
    expect((await client.store.listNamespaces({ prefix: [root], limit: 1, offset: 1 })).namespaces).toEqual([[root, "docs", "v2"]]);
  });

  it("shares items with graphs through the LangGraph store", async () => {
    const ns = ["shared", crypto.randomUUID()];
    await server.client.store.putItem(ns, "k", { from: "api" });
    expect((await server.storage.langgraphStore.get(ns, "k"))?.value).toEqual({ from: "api" });
    await server.storage.langgraphStore.put(ns, "g", { from: "graph" });
    expect((await server.client.store.getItem(ns, "g"))?.value).toEqual({ from: "graph" });
  });

  it("rejects invalid namespaces, keys, values and TTLs with 422", async () => {
    const { url } = server;
    const cases: Array<[string, string, unknown, RegExp]> = [
      ["PUT", "/store/items", { namespace: ["a.b"], key: "k", value: {} }, /^namespace\.0: .*periods/],
      ["PUT", "/store/items", { namespace: ["a", ""], key: "k", value: {} }, /^namespace\.1: .*empty/],
      ["PUT", "/store/items", { namespace: [], key: "k", value: {} }, /^namespace: .*empty/],
      ["PUT", "/store/items", { namespace: ["a"], key: "k", value: [1] }, /^value/],
      ["PUT", "/store/items", { namespace: ["a"], value: {} }, /^key/],
      ["PUT", "/store/items", { namespace: ["a"], key: "k", value: {}, ttl: -5 }, /^ttl/],
      ["PUT", "/store/items", { namespace: ["a"], key: "k", value: {}, ttl: "5" }, /^ttl/],
      ["DELETE", "/store/items", { namespace: ["a"] }, /^key/],
      ["POST", "/store/items/search", { namespace_prefix: ["x."] }, /^namespace_prefix\.0/],
      ["POST", "/store/items/search", { namespace_prefix: ["x"], limit: 0 }, /^limit/],
      ["POST", "/store/namespaces", { suffix: [""] }, /^suffix\.0/],
      ["POST", "/store/namespaces", { max_depth: 0 }, /^max_depth/],
    ];
    for (const [method, path, body, detail] of cases) {
      const response = await rawJson(`${url}${path}`, method, body);
      expect(response.status, `${method} ${path} ${JSON.stringify(body)}`).toBe(422);
      expect((response.json as { detail: string }).detail).toMatch(detail);
    }
    const badGet = await rawJson(`${url}/store/items?namespace=a..b&key=k`, "GET");
    expect(badGet.status).toBe(422);
    expect((badGet.json as { detail: string }).detail).toMatch(/^namespace\.1/);
    const noKey = await rawJson(`${url}/store/items?namespace=a`, "GET");
    expect(noKey.status).toBe(422);
    // The SDK refuses a "." in a label before sending anything.
    await expect(server.client.store.putItem(["a.b"], "k", {})).rejects.toThrow(/periods/);
    await expectHttpError(server.client.store.searchItems(["ok", "no.pe"]), 422, /periods/);
  });
});
