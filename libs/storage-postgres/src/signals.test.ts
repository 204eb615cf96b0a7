import fc from "fast-check";
import pg from "pg";
import { postgresUrl } from "@agent-server/testing/postgres";
import { afterAll, describe, expect, it } from "vitest";
import { MAX_CHUNK_BYTES, splitUtf8 } from "./signals.js";
import { TestStorages } from "../test/storages.js";

const storages = new TestStorages();
afterAll(() => storages.cleanup());

describe("PostgreSQL signals (LISTEN/NOTIFY)", () => {
  it("reconnects after its listening connection is killed and delivers what is published afterwards", async () => {
    const storage = await storages.create();
    const received: unknown[] = [];
    await storage.signals.subscribe("run:x", (payload) => received.push(payload));
    await storage.signals.publish("run:x", "before");
    while (!received.includes("before")) await new Promise((resolve) => setTimeout(resolve, 10));

    // Kill the listening backend, as a failover or an idle-connection reaper would.
    const admin = new pg.Client({ connectionString: postgresUrl() });
    await admin.connect();
    try {
      const killed = await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1", [
        `agent-server signals ${storage.schema}`,
      ]);
      expect(killed.rowCount).toBe(1);
    } finally {
      await admin.end();
    }
    // Signals sent while it is away are lost (callers poll too); once it is back, they arrive again.
    let n = 0;
    while (!received.some((p) => typeof p === "string" && p.startsWith("after"))) {
      await storage.signals.publish("run:x", `after ${(n += 1)}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await storage.signals.publish("run:x", "last");
    while (!received.includes("last")) await new Promise((resolve) => setTimeout(resolve, 10));
    const after = received.filter((p) => typeof p === "string" && p.startsWith("after"));
    // In order, none twice.
    expect(after).toEqual([...after].sort((a, b) => Number(String(a).slice(6)) - Number(String(b).slice(6))));
    expect(new Set(after).size).toBe(after.length);
  });

  it("sends a payload PostgreSQL could not carry in one NOTIFY (over 8000 bytes) as several", async () => {
    const storage = await storages.create();
    const payload = "x".repeat(50_000);
    const direct = new pg.Client({ connectionString: postgresUrl() });
    await direct.connect();
    try {
      await expect(direct.query("SELECT pg_notify('as_too_long', $1)", [payload])).rejects.toThrow(/payload string too long/);
    } finally {
      await direct.end();
    }
    const received: unknown[] = [];
    await storage.signals.subscribe("big", (p) => received.push(p));
    await storage.signals.publish("big", payload);
    while (received.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(received).toEqual([payload]);
  });

  it("publish rejects once the storage is closed", async () => {
    const storage = await storages.create();
    await storage.close();
    await expect(storage.signals.publish("c", 1)).rejects.toThrow(/closed/);
  });

  it("splitUtf8 cuts at character boundaries into pieces within the byte limit that join back", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", maxLength: 3000 }), fc.integer({ min: 4, max: 64 }), (text, max) => {
        const pieces = splitUtf8(text, max);
        expect(pieces.join("")).toBe(text);
        for (const piece of pieces) expect(Buffer.byteLength(piece, "utf8")).toBeLessThanOrEqual(max);
      }),
    );
    expect(splitUtf8("é".repeat(MAX_CHUNK_BYTES), MAX_CHUNK_BYTES)).toHaveLength(2);
  });
});
