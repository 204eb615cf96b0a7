import { describe, expect, it } from "vitest";
import { Annotation, END, START, StateGraph } from "@langchain/langgraph";
import { ISO_MS, sleep, uid, type Harness } from "./harness.js";

export function describeStore(h: Harness): void {
  describe("store items and langgraphStore", () => {
    it("put/get/delete; put replaces the value but keeps created_at; unknown keys read null", async () => {
      const s = await h.open();
      const ns = ["users", uid()];
      await s.store.put(ns, "prefs", { theme: "dark", n: [1] });
      const first = await s.store.get(ns, "prefs");
      expect(first).toEqual({
        namespace: ns,
        key: "prefs",
        value: { theme: "dark", n: [1] },
        created_at: expect.stringMatching(ISO_MS),
        updated_at: expect.stringMatching(ISO_MS),
      });
      await sleep(2);
      await s.store.put(ns, "prefs", { theme: "light" });
      const second = await s.store.get(ns, "prefs");
      expect(second).toMatchObject({ value: { theme: "light" }, created_at: first!.created_at });
      expect(second!.updated_at > first!.updated_at).toBe(true);
      expect(await s.store.get(ns, "missing")).toBeNull();
      expect(await s.store.get([...ns, "deeper"], "prefs")).toBeNull();
      expect(await s.store.get(["users"], "prefs")).toBeNull();
      expect(await s.store.delete(ns, "prefs")).toBe(true);
      expect(await s.store.get(ns, "prefs")).toBeNull();
      expect(await s.store.delete(ns, "prefs")).toBe(false);
    });

    it("values are defensive copies", async () => {
      const s = await h.open();
      const value = { list: [1], when: new Date("2024-05-06T07:08:09.010Z") };
      await s.store.put(["copies"], "k", value);
      value.list.push(2);
      const read = await s.store.get(["copies"], "k");
      expect(read!.value).toEqual({ list: [1], when: "2024-05-06T07:08:09.010Z" });
      (read!.value.list as number[]).push(3);
      expect((await s.store.get(["copies"], "k"))!.value).toEqual({ list: [1], when: "2024-05-06T07:08:09.010Z" });
    });

    it("search by namespace prefix and value filter, newest update first, limit (default 10) and offset", async () => {
      const s = await h.open();
      const root = uid();
      await s.store.put([root, "a"], "k1", { score: 1, kind: "x" });
      await sleep(2);
      await s.store.put([root, "a", "deep"], "k2", { score: 5, kind: "y" });
      await sleep(2);
      await s.store.put([root, "b"], "k3", { score: 9, kind: "x" });
      await sleep(2);
      await s.store.put(["other"], "k4", { score: 9, kind: "x" });
      const keys = async (prefix: string[], options?: Parameters<typeof s.store.search>[1]) =>
        (await s.store.search(prefix, options)).map((i) => i.key);
      expect(await keys([root])).toEqual(["k3", "k2", "k1"]);
      expect(await keys([root, "a"])).toEqual(["k2", "k1"]);
      expect(await keys([root, "a", "deep"])).toEqual(["k2"]);
      expect(await keys([root], { filter: { kind: "x" } })).toEqual(["k3", "k1"]);
      expect(await keys([root], { filter: { score: { $gte: 5 } } })).toEqual(["k3", "k2"]);
      expect(await keys([root], { filter: { score: { $gt: 1, $lt: 9 } } })).toEqual(["k2"]);
      expect(await keys([root], { filter: { kind: { $ne: "x" } } })).toEqual(["k2"]);
      expect(await keys([root], { limit: 1, offset: 1 })).toEqual(["k2"]);
      await sleep(2);
      await s.store.put([root, "a"], "k1", { score: 1, kind: "x" });
      expect(await keys([root])).toEqual(["k1", "k3", "k2"]);
      for (let i = 0; i < 12; i++) await s.store.put([root, "many"], `m${i}`, { i });
      expect(await s.store.search([root, "many"])).toHaveLength(10);
      expect(await s.store.search([uid()])).toEqual([]);
    });

    it("listNamespaces: prefix/suffix with '*', maxDepth truncation with de-duplication, lexicographic order, paging", async () => {
      const s = await h.open();
      const r = uid();
      for (const ns of [
        [r, "b", "x"],
        [r, "a", "x"],
        [r, "a", "y"],
        [r, "a"],
        [r, "c", "x", "deep"],
      ])
        await s.store.put(ns, "k", { v: 1 });
      await s.store.put(["zz-other"], "k", { v: 1 });
      expect(await s.store.listNamespaces({ prefix: [r] })).toEqual([
        [r, "a"],
        [r, "a", "x"],
        [r, "a", "y"],
        [r, "b", "x"],
        [r, "c", "x", "deep"],
      ]);
      expect(await s.store.listNamespaces({ prefix: [r, "*", "x"] })).toEqual([
        [r, "a", "x"],
        [r, "b", "x"],
        [r, "c", "x", "deep"],
      ]);
      expect(await s.store.listNamespaces({ prefix: [r], suffix: ["x"] })).toEqual([
        [r, "a", "x"],
        [r, "b", "x"],
      ]);
      expect(await s.store.listNamespaces({ suffix: ["*", "deep"] })).toEqual([[r, "c", "x", "deep"]]);
      expect(await s.store.listNamespaces({ prefix: [r], maxDepth: 2 })).toEqual([
        [r, "a"],
        [r, "b"],
        [r, "c"],
      ]);
      expect(await s.store.listNamespaces({ prefix: [r], maxDepth: 2, limit: 1, offset: 1 })).toEqual([[r, "b"]]);
      const all = await s.store.listNamespaces({ maxDepth: 1 });
      expect(all).toEqual(expect.arrayContaining([[r], ["zz-other"]]));
      expect(all).toEqual([...all].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)));
    });

    it("an auth filter scopes search and listNamespaces to matching items (namespace, key and value fields); paging counts only those", async () => {
      const s = await h.open();
      const root = uid();
      const [alice, bob] = [`alice-${uid()}`, `bob-${uid()}`];
      await s.store.put([root, alice], "k1", { text: "a1", kind: "note" });
      await sleep(2);
      await s.store.put([root, alice, "deep"], "k2", { text: "a2", kind: "todo" });
      await sleep(2);
      await s.store.put([root, bob], "k1", { text: "b1", kind: "note" });
      const mine = { namespace: { $contains: alice } };
      expect((await s.store.search([root], { authFilter: mine })).map((i) => i.value.text)).toEqual(["a2", "a1"]);
      expect((await s.store.search([root], { authFilter: mine, limit: 1, offset: 1 })).map((i) => i.value.text)).toEqual(["a1"]);
      expect((await s.store.search([root], { authFilter: { ...mine, kind: "note" } })).map((i) => i.value.text)).toEqual(["a1"]);
      expect((await s.store.search([root], { authFilter: { key: "k1" } })).map((i) => i.value.text)).toEqual(["b1", "a1"]);
      expect((await s.store.search([root], { authFilter: mine, filter: { kind: "todo" } })).map((i) => i.value.text)).toEqual(["a2"]);
      expect(await s.store.search([root], { authFilter: { namespace: { $contains: "nobody" } } })).toEqual([]);
      expect(await s.store.listNamespaces({ prefix: [root], authFilter: mine })).toEqual([
        [root, alice],
        [root, alice, "deep"],
      ]);
      // Matched on the full namespace, then truncated.
      expect(await s.store.listNamespaces({ prefix: [root], maxDepth: 1, authFilter: { namespace: { $contains: bob } } })).toEqual([
        [root],
      ]);
      expect(await s.store.listNamespaces({ prefix: [root], authFilter: { namespace: { $contains: "nobody" } } })).toEqual([]);
    });

    it("langgraphStore and storage.store share items both ways", async () => {
      const s = await h.open();
      const ns = ["shared", uid()];
      await s.langgraphStore.put(ns, "from-graph", { n: 1 });
      expect(await s.store.get(ns, "from-graph")).toMatchObject({ namespace: ns, key: "from-graph", value: { n: 1 } });
      await s.store.put(ns, "from-api", { n: 2 });
      const item = await s.langgraphStore.get(ns, "from-api");
      expect(item).toMatchObject({ namespace: ns, key: "from-api", value: { n: 2 } });
      expect(item!.createdAt).toBeInstanceOf(Date);
      expect((await s.langgraphStore.search(ns, { filter: { n: 2 } })).map((i) => i.key)).toEqual(["from-api"]);
      expect(await s.langgraphStore.listNamespaces({ prefix: ["shared"] })).toContainEqual(ns);
      await s.langgraphStore.delete(ns, "from-api");
      expect(await s.store.get(ns, "from-api")).toBeNull();
    });

    it("a graph's BaseStore writes land in storage.store", async () => {
      const s = await h.open();
      const userId = uid();
      const State = Annotation.Root({ done: Annotation<boolean> });
      const graph = new StateGraph(State)
        .addNode("remember", async (_state, config) => {
          await config.store!.put(["memories", userId], "fact", { text: "likes tea" });
          return { done: true };
        })
        .addEdge(START, "remember")
        .addEdge("remember", END)
        .compile({ checkpointer: s.checkpointer, store: s.langgraphStore });
      const thread = await s.threads.create({ thread_id: uid() });
      await graph.invoke({ done: false }, { configurable: { thread_id: thread.thread_id, run_id: uid() } });
      expect((await s.store.get(["memories", userId], "fact"))!.value).toEqual({ text: "likes tea" });
    });
  });
}
