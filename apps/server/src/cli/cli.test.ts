import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { parseCli, UsageError } from "./args.js";
import { EXAMPLE_CONFIG, jsonLines, killAll, runCli, memoryDevArgs } from "../../test/support/cli-process.js";
import { VERSION } from "../version.js";

afterEach(killAll);

describe("agent-server command line", () => {
  it("--help prints the usage and exits 0", async () => {
    const run = runCli(["--help"]);
    expect(await run.exited).toBe(0);
    expect(run.stdout()).toMatch(/^Usage: agent-server <command>/);
    for (const flag of ["--config", "--storage", "--database-url", "--log-format", "--workers"]) expect(run.stdout()).toContain(flag);
    for (const flag of ["-p, --port", "-h, --host", "-c, --config", "-n, --n-jobs-per-worker", "--no-browser"])
      expect(run.stdout()).toContain(flag);
  });

  it("-h alone still shows the help (with a value it is --host, as on langgraphjs dev)", async () => {
    const run = runCli(["-h"]);
    expect(await run.exited).toBe(0);
    expect(run.stdout()).toMatch(/^Usage: agent-server <command>/);
  });

  it("--tunnel is a usage error saying it is not supported", async () => {
    const run = runCli(["dev", "--tunnel"]);
    expect(await run.exited).toBe(2);
    expect(run.stderr()).toContain("--tunnel is not supported");
  });

  it("a langgraphjs dev command line starts the server: -c <folder> -p <port> -h <host> -n <jobs> --no-browser", async () => {
    const run = runCli([
      "dev",
      "-c",
      dirname(EXAMPLE_CONFIG),
      "-p",
      "0",
      "-h",
      "127.0.0.1",
      "-n",
      "3",
      "--no-browser",
      "--no-reload",
      "--storage",
      "memory",
      "--log-format",
      "json",
    ]);
    await run.waitFor(/listening on http:\/\/127\.0\.0\.1:\d+/);
    const listening = jsonLines(run.stdout()).find((line) => String(line.msg).includes("listening on"));
    expect(listening).toMatchObject({ workers: 3, graphs: ["echo", "approval", "relay"] });
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

  it("a port already in use exits 2 with one line naming the port and how to choose another, no stack trace", async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    const port = (taken.address() as { port: number }).port;
    try {
      // Default dev: the reload supervisor runs the server, and ends with it when its first start fails.
      const run = runCli(["dev", "--config", EXAMPLE_CONFIG, "--storage", "memory", "--port", String(port)]);
      expect(await run.exited).toBe(2);
      const output = run.stdout() + run.stderr();
      const lines = output.split("\n").filter((line) => line.includes("already in use"));
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain(`port ${port} on 127.0.0.1 is already in use`);
      expect(lines[0]).toContain("--port <n> (--port 0 picks a free one)");
      expect(output).not.toMatch(/^\s+at /m);
      expect(output).not.toContain("listening on");
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
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

  it("names the langgraph.json runtime settings it does not implement, once, at start", async () => {
    const dir = mkdtempSync(join(tmpdir(), "agent-server-cli-"));
    try {
      const echo = join(dirname(EXAMPLE_CONFIG), "src/echo.ts");
      const config = {
        graphs: { echo: `${echo}:graph` },
        store: { index_backend: "faiss" },
        http: { disable_meta: true },
        dependencies: ["."],
      };
      writeFileSync(join(dir, "langgraph.json"), JSON.stringify(config));
      const run = runCli(memoryDevArgs(join(dir, "langgraph.json")));
      await run.waitFor(/listening on/);
      const warning = jsonLines(run.stdout()).find((line) => Array.isArray(line.ignored));
      expect(warning).toMatchObject({ level: 40, ignored: ["http.disable_meta", "store.index_backend"] });
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

  it("takes the short flags of langgraphjs dev: -p, -h, -c (a file, a folder or a file:// URL) and -n", () => {
    const parsed = parseCli(["dev", "-p", "3000", "-h", "0.0.0.0", "-c", dirname(EXAMPLE_CONFIG), "-n", "4", "--no-browser"], {});
    expect(parsed.kind === "run" && parsed.options).toMatchObject({ port: 3000, host: "0.0.0.0", config: EXAMPLE_CONFIG, workers: 4 });
    const file = parseCli(["dev", "-c", EXAMPLE_CONFIG], {});
    expect(file.kind === "run" && file.options.config).toBe(EXAMPLE_CONFIG);
    const url = parseCli(["dev", "--config", pathToFileURL(dirname(EXAMPLE_CONFIG)).href], {});
    expect(url.kind === "run" && url.options.config).toBe(EXAMPLE_CONFIG);
    const long = parseCli(["serve", "--n-jobs-per-worker", "7"], {});
    expect(long.kind === "run" && long.options.workers).toBe(7);
    expect(() => parseCli(["dev", "-n", "2", "--workers", "3"], {})).toThrow(/give one of them/);
    expect(() => parseCli(["dev", "-n", "0"], {})).toThrow(/--n-jobs-per-worker must be an integer from 1/);
  });

  it("takes the run time limit from --run-timeout, else BG_JOB_TIMEOUT_SECS, else leaves it to langgraph.json", () => {
    const limit = (argv: string[], env: Record<string, string>) => {
      const parsed = parseCli(argv, env);
      return parsed.kind === "run" ? parsed.options.runTimeoutSeconds : "not a run";
    };
    expect(limit(["serve"], {})).toBeUndefined();
    expect(limit(["serve"], { BG_JOB_TIMEOUT_SECS: "120" })).toBe(120);
    expect(limit(["serve", "--run-timeout", "0"], { BG_JOB_TIMEOUT_SECS: "120" })).toBe(0);
    expect(() => parseCli(["serve", "--run-timeout", "1.5"], {})).toThrow("--run-timeout must be an integer from 0 to 2147483 (got '1.5')");
    expect(() => parseCli(["serve"], { BG_JOB_TIMEOUT_SECS: "forever" })).toThrow(/BG_JOB_TIMEOUT_SECS/);
  });

  it("rejects flags that do not fit the storage and out-of-range numbers", () => {
    expect(() => parseCli(["dev", "--data-dir", "x", "--storage", "memory"], {})).toThrow(UsageError);
    expect(() => parseCli(["dev", "--database-url", "postgres://x"], {})).toThrow(/need --storage postgres/);
    expect(() => parseCli(["dev", "--port", "70000"], {})).toThrow(/--port must be an integer from 0 to 65535/);
    expect(() => parseCli(["dev", "--workers", "0"], {})).toThrow(/--workers/);
    expect(() => parseCli(["dev", "extra"], {})).toThrow(/unexpected argument 'extra'/);
  });
});
