import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "@langchain/langgraph-sdk";
import { Auth, HTTPException } from "@langchain/langgraph-sdk/auth";
import type { TestServer } from "../../test/support/index.js";
import { expectHttpError, httpDrivers, openServer } from "../../test/support/http.js";

/**
 * A store handler that scopes by filter instead of rewriting the namespace (the official suite's
 * pattern): each user sees the items whose namespace names them. Tokens are the user names.
 */
const auth = new Auth()
  .authenticate((request: Request) => {
    const token = request.headers.get("authorization")?.replace(/^Bearer /, "");
    if (!token || !["alice", "bob"].includes(token)) throw new HTTPException(401, { message: "Invalid token" });
    return { identity: token, permissions: [] };
  })
  .on("store", ({ user }) => ({ namespace: { $contains: user.identity } }));

describe.each(httpDrivers)("store scoped by an auth handler's filter ($name)", (driver) => {
  let server: TestServer;
  let alice: Client;
  let bob: Client;
  beforeAll(async () => {
    server = await openServer(driver, { app: { auth } });
    const as = (user: string) => new Client({ apiUrl: server.url, defaultHeaders: { Authorization: `Bearer ${user}` } });
    [alice, bob] = [as("alice"), as("bob")];
  });
  afterAll(() => server.close());

  it("searches and namespace listings hold only the caller's items; others' items are not found; writes outside the scope are refused", async () => {
    const topic = crypto.randomUUID();
    await alice.store.putItem(["alice", topic], "note", { text: "alice's" });
    await bob.store.putItem(["bob", topic], "note", { text: "bob's" });

    expect((await alice.store.searchItems([])).items.map((i) => i.value.text)).toEqual(["alice's"]);
    expect((await bob.store.searchItems([])).items.map((i) => i.value.text)).toEqual(["bob's"]);
    expect((await alice.store.listNamespaces()).namespaces).toEqual([["alice", topic]]);
    expect((await alice.store.listNamespaces({ prefix: ["bob"] })).namespaces).toEqual([]);

    await expectHttpError(alice.store.getItem(["bob", topic], "note"), 404, /Item not found/);
    await expectHttpError(alice.store.putItem(["bob", topic], "note", { text: "overwritten" }), 404);
    await expectHttpError(alice.store.deleteItem(["bob", topic], "note"), 404);
    expect((await server.storage.store.get(["bob", topic], "note"))?.value).toEqual({ text: "bob's" });
    await expectHttpError(alice.store.putItem(["bob", topic], "new", { text: "planted" }), 403);
    expect(await server.storage.store.get(["bob", topic], "new")).toBeNull();
    await expectHttpError(alice.store.deleteItem(["shared"], "nothing"), 403);

    expect(await alice.store.getItem(["alice", "none"], "missing")).toBeNull();
    await alice.store.deleteItem(["alice", topic], "note");
    expect(await server.storage.store.get(["alice", topic], "note")).toBeNull();
  });
});
