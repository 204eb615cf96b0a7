import { afterAll, describe, expect, it } from "vitest";
import { TestStorages } from "../test/storages.js";

const storages = new TestStorages();
afterAll(() => storages.cleanup());

describe("PostgreSQL owner presence (session advisory locks)", () => {
  it("an announced owner is alive for another process while its storage is open, and gone once its connection closes", async () => {
    const first = await storages.create();
    const owner = await storages.sibling(first);
    const watcher = await storages.sibling(first);
    await owner.presence.announce("host:1:p.a");
    await owner.presence.announce("host:1:p.b");
    expect(await watcher.presence.alive(["host:1:p.a", "host:1:p.b", "host:2:p.never"])).toEqual(new Set(["host:1:p.a", "host:1:p.b"]));
    // Asking does not take the lock away: still alive on the next look.
    expect(await watcher.presence.alive(["host:1:p.a"])).toEqual(new Set(["host:1:p.a"]));
    await owner.close();
    expect(await watcher.presence.alive(["host:1:p.a", "host:1:p.b"])).toEqual(new Set());
  });

  it("presence is per schema: an owner announced on another schema is not alive here", async () => {
    const here = await storages.create();
    const elsewhere = await storages.create();
    await elsewhere.presence.announce("host:3:p.c");
    expect(await here.presence.alive(["host:3:p.c"])).toEqual(new Set());
    expect(await (await storages.sibling(elsewhere)).presence.alive(["host:3:p.c"])).toEqual(new Set(["host:3:p.c"]));
  });
});
