import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { parseCli, UsageError } from "./args.js";
import { EXAMPLE_CONFIG, killAll, runCli } from "./testing/cli-process.js";
import { VERSION } from "./version.js";

afterEach(killAll);

describe("agent-server command line", () => {
  it("--help prints the usage and exits 0", async () => {
    const run = runCli(["--help"]);
    expect(await run.exited).toBe(0);
    expect(run.stdout()).toMatch(/^Usage: agent-server <command>/);
    for (const flag of ["--config", "--storage", "--database-url", "--log-format", "--workers"]) expect(run.stdout()).toContain(flag);
  });

  it("--version prints the package version", async () => {
    const run = runCli(["--version"]);
    expect(await run.exited).toBe(0);
    expect(run.stdout().trim()).toBe(VERSION);
  });

  it("an unknown flag exits 2 with the usage on stderr", async () => {
    const run = runCli(["dev", "--prot", "3000"]);
    expect(await run.exited).toBe(2);
    expect(run.stderr()).toContain("--prot");
    expect(run.stderr()).toContain("Usage: agent-server");
    expect(run.stdout()).toBe("");
  });

  it("an unknown command or a bad value exits 2", async () => {
    const unknown = runCli(["start"]);
    const badStorage = runCli(["dev", "--storage", "mysql"]);
    expect(await unknown.exited).toBe(2);
    expect(unknown.stderr()).toContain("unknown command 'start'");
    expect(await badStorage.exited).toBe(2);
    expect(badStorage.stderr()).toContain("--storage must be one of sqlite, memory, postgres");
  });

  it("postgres without a database URL exits 2 naming both ways to give one", async () => {
    const run = runCli(["dev", "--config", EXAMPLE_CONFIG, "--storage", "postgres"]);
    expect(await run.exited).toBe(2);
    expect(run.stderr()).toMatch(/--database-url or the POSTGRES_URL/);
  });

  it("a missing langgraph.json exits 2", async () => {
    const run = runCli(["dev", "--config", "/nonexistent/langgraph.json", "--storage", "memory"]);
    expect(await run.exited).toBe(2);
    expect(run.stderr()).toContain("config file not found: /nonexistent/langgraph.json");
  });

  it("a langgraph.json naming a missing graph file exits 2 with the file named", async () => {
    const dir = mkdtempSync(join(tmpdir(), "agent-server-cli-"));
    try {
      writeFileSync(join(dir, "langgraph.json"), JSON.stringify({ graphs: { agent: "./missing.ts:graph" } }));
      const run = runCli(["dev", "--config", join(dir, "langgraph.json"), "--storage", "memory", "--port", "0", "--log-format", "json"]);
      expect(await run.exited).toBe(2);
      expect(run.stdout()).toContain(`file not found: ${join(dir, "missing.ts")}`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("a LANGGRAPH_CONFIG that is not JSON (here from langgraph.json env) exits 2 naming the variable", async () => {
    const dir = mkdtempSync(join(tmpdir(), "agent-server-cli-"));
    try {
      writeFileSync(join(dir, "langgraph.json"), JSON.stringify({ graphs: {}, env: { LANGGRAPH_CONFIG: "{agent: nope" } }));
      const run = runCli(["dev", "--config", join(dir, "langgraph.json"), "--storage", "memory", "--port", "0", "--log-format", "json"]);
      expect(await run.exited).toBe(2);
      expect(run.stdout()).toContain("LANGGRAPH_CONFIG is not valid JSON");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("parseCli defaults", () => {
  it("dev binds loopback:2024 with pretty logs; serve binds 0.0.0.0:8123 with JSON logs", () => {
    const dev = parseCli(["dev"], {});
    const serve = parseCli(["serve"], {});
    expect(dev.kind === "run" && dev.options).toMatchObject({ host: "127.0.0.1", port: 2024, storage: "sqlite", logFormat: "pretty" });
    expect(serve.kind === "run" && serve.options).toMatchObject({ host: "0.0.0.0", port: 8123, storage: "sqlite", logFormat: "json" });
  });

  it("takes the database URL from POSTGRES_URL, then POSTGRES_URI, and the flag over both", () => {
    const env = { POSTGRES_URL: "postgres://a/x", POSTGRES_URI: "postgres://b/y" };
    const fromEnv = parseCli(["serve", "--storage", "postgres"], env);
    const fromUri = parseCli(["serve", "--storage", "postgres"], { POSTGRES_URI: "postgres://b/y" });
    const fromFlag = parseCli(["serve", "--storage", "postgres", "--database-url", "postgres://c/z"], env);
    expect(fromEnv.kind === "run" && fromEnv.options.databaseUrl).toBe("postgres://a/x");
    expect(fromUri.kind === "run" && fromUri.options.databaseUrl).toBe("postgres://b/y");
    expect(fromFlag.kind === "run" && fromFlag.options.databaseUrl).toBe("postgres://c/z");
  });

  it("rejects flags that do not fit the storage and out-of-range numbers", () => {
    expect(() => parseCli(["dev", "--data-dir", "x", "--storage", "memory"], {})).toThrow(UsageError);
    expect(() => parseCli(["dev", "--database-url", "postgres://x"], {})).toThrow(/need --storage postgres/);
    expect(() => parseCli(["dev", "--port", "70000"], {})).toThrow(/--port must be an integer from 0 to 65535/);
    expect(() => parseCli(["dev", "--workers", "0"], {})).toThrow(/--workers/);
    expect(() => parseCli(["dev", "extra"], {})).toThrow(/unexpected argument 'extra'/);
  });
});
