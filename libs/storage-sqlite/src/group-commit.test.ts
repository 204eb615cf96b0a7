import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openDatabase } from "./db.js";
import { GroupCommit } from "./group-commit.js";

function twoConnections() {
  const path = join(mkdtempSync(join(tmpdir(), "group-commit-")), "db.sqlite");
  const db = openDatabase(path);
  db.exec("CREATE TABLE items (id TEXT PRIMARY KEY)");
  return { db, reader: openDatabase(path) };
}

const ids = (reader: ReturnType<typeof openDatabase>) =>
  (reader.prepare("SELECT id FROM items ORDER BY id").all() as { id: string }[]).map((row) => row.id);

describe("GroupCommit", () => {
  it("commits the writes queued in one turn together, and resolves each once they are committed", async () => {
    const { db, reader } = twoConnections();
    const commits = new GroupCommit(db);
    const insert = db.prepare("INSERT INTO items (id) VALUES (?)");
    const written = ["a", "b", "c"].map((id) => commits.write(() => insert.run(id)));
    // Nothing is committed (or visible to another connection) before the batch's turn.
    expect(ids(reader)).toEqual([]);
    await Promise.all(written);
    expect(ids(reader)).toEqual(["a", "b", "c"]);
  });

  it("fails only the write that throws; the others of its batch commit", async () => {
    const { db, reader } = twoConnections();
    const commits = new GroupCommit(db);
    const insert = db.prepare("INSERT INTO items (id) VALUES (?)");
    const results = await Promise.allSettled([
      commits.write(() => insert.run("a")),
      commits.write(() => insert.run("a")),
      commits.write(() => insert.run("b")),
    ]);
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect(ids(reader)).toEqual(["a", "b"]);
  });

  it("flush commits what is queued at once (before the connection closes)", async () => {
    const { db, reader } = twoConnections();
    const commits = new GroupCommit(db);
    const written = commits.write(() => db.prepare("INSERT INTO items (id) VALUES (?)").run("a"));
    commits.flush();
    db.close();
    await written;
    expect(ids(reader)).toEqual(["a"]);
  });
});
