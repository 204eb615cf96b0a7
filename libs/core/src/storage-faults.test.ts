import { describe, expect, it } from "vitest";
import { NotFoundError } from "./errors.js";
import { storageFault, StorageUnavailableError } from "./storage-faults.js";

const coded = (message: string, code: string) => Object.assign(new Error(message), { code });

describe("storageFault", () => {
  it.each([
    ["PostgreSQL shut down by its administrator", coded("terminating connection due to administrator command", "57P01"), 503, "57P01"],
    ["PostgreSQL starting or stopping", coded("the database system is shutting down", "57P03"), 503, "57P03"],
    ["a connection exception", coded("connection failure", "08006"), 503, "08006"],
    ["PostgreSQL out of disk", coded("could not extend file", "53100"), 507, "53100"],
    ["a refused connection", coded("connect ECONNREFUSED 127.0.0.1:5432", "ECONNREFUSED"), 503, "ECONNREFUSED"],
    ["SQLite's disk full", coded("database or disk is full", "SQLITE_FULL"), 507, "SQLITE_FULL"],
    ["SQLite's I/O error", coded("disk I/O error", "SQLITE_IOERR_WRITE"), 503, "SQLITE_IOERR_WRITE"],
    ["a read-only SQLite file", coded("attempt to write a readonly database", "SQLITE_READONLY"), 503, "SQLITE_READONLY"],
    ["pg's lost connection", new Error("Connection terminated unexpectedly"), 503, "CONNECTION_LOST"],
    ["pg's pool timeout", new Error("timeout exceeded when trying to connect"), 503, "CONNECTION_LOST"],
  ])("%s is a fault with status %i", (_name, error, status, code) => {
    const fault = storageFault(error);
    expect(fault?.status).toBe(status);
    expect(fault?.code).toBe(code);
    expect(fault?.detail).toMatch(/^Storage unavailable: /);
    expect(fault?.retryAfterSeconds).toBeGreaterThan(0);
  });

  it("names the database and what happened", () => {
    expect(storageFault(coded("database or disk is full", "SQLITE_FULL"))?.detail).toContain("SQLite is out of disk space (SQLITE_FULL)");
    expect(storageFault(coded("terminating connection", "57P01"))?.detail).toContain("PostgreSQL cannot be reached (57P01)");
    const refused = storageFault(coded("connect ECONNREFUSED 127.0.0.1:5432", "ECONNREFUSED"));
    expect(refused?.detail).toContain("PostgreSQL cannot be reached (connection refused)");
    // The SDK's caller reads "ECONNREFUSED" in any error text as its own connection failure and drops the status.
    expect(refused?.detail).not.toContain("ECONNREFUSED");
    expect(refused?.code).toBe("ECONNREFUSED");
  });

  it("finds the fault behind wrapping errors (cause chains, aggregates)", () => {
    const inner = coded("database or disk is full", "SQLITE_FULL");
    expect(storageFault(new Error("insert failed", { cause: inner }))?.kind).toBe("full");
    expect(storageFault(new AggregateError([new Error("other"), inner]))?.kind).toBe("full");
    expect(storageFault(new StorageUnavailableError("the pool is closed"))?.detail).toContain("the pool is closed");
  });

  it.each([
    ["a bug", new TypeError("cannot read properties of undefined")],
    ["a constraint violation", coded("duplicate key value violates unique constraint", "23505")],
    ["a syntax error", coded('syntax error at or near "SELEC"', "42601")],
    ["SQLite's constraint", coded("UNIQUE constraint failed", "SQLITE_CONSTRAINT_UNIQUE")],
    ["a domain error", new NotFoundError("thread not found")],
    ["a string", "ECONNREFUSED"],
  ])("%s is not a fault", (_name, error) => {
    expect(storageFault(error)).toBeUndefined();
  });
});
