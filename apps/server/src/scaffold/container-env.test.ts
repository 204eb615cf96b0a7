import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { createTestSchema, type TestSchema } from "@agent-server/testing/postgres";
import { afterEach, describe, expect, it } from "vitest";
import { EnvironmentError, parseCli, type CliOptions } from "../cli/index.js";
import { EXAMPLE_CONFIG, killAll, runCli, startCli } from "../../test/support/cli-process.js";
import { newProjectInTemp } from "../../test/support/scaffolded-project.js";

afterEach(killAll);

/** The JSON log line that says where the server listens. */
function listeningLine(stdout: string): Record<string, unknown> {
  return JSON.parse(stdout.split("\n").find((line) => line.includes("listening on"))!) as Record<string, unknown>;
}

/** The options of a command line that must parse. */
function options(argv: string[], env: NodeJS.ProcessEnv): CliOptions {
  const parsed = parseCli(argv, env);
  if (parsed.kind !== "run") throw new Error(`not a server command: ${argv.join(" ")}`);
  return parsed.options;
}

describe("the official LangGraph container's variables, beside ours (a flag always wins)", () => {
  it("DATABASE_URI, then POSTGRES_URI, are the PostgreSQL URL after POSTGRES_URL; --database-url wins over all", () => {
    const postgres = ["serve", "--storage", "postgres"];
    const all = { POSTGRES_URL: "postgres://ours/a", DATABASE_URI: "postgres://official/b", POSTGRES_URI: "postgres://older/c" };
    expect(options(postgres, all).databaseUrl).toBe("postgres://ours/a");
    expect(options(postgres, { ...all, POSTGRES_URL: "" }).databaseUrl).toBe("postgres://official/b");
    expect(options(postgres, { POSTGRES_URI: "postgresql://older/c" }).databaseUrl).toBe("postgresql://older/c");
    expect(options([...postgres, "--database-url", "postgres://flag/d"], all).databaseUrl).toBe("postgres://flag/d");
    // As POSTGRES_URL, a URL in the environment selects nothing: the storage stays SQLite without --storage.
    expect(options(["serve"], { DATABASE_URI: "postgres://official/b" }).storage).toBe("sqlite");
  });

  it("a URL variable that is not a postgres:// URL is an EnvironmentError naming it (the value, maybe a password, is not shown)", () => {
    const postgres = ["migrate", "--storage", "postgres"];
    for (const [name, value] of [
      ["DATABASE_URI", "mysql://user:secret@db/x"],
      ["POSTGRES_URI", "not a url"],
      ["POSTGRES_URL", "secret@db"],
    ]) {
      const parse = () => parseCli(postgres, { [name]: value });
      expect(parse).toThrow(EnvironmentError);
      expect(parse).toThrow(`the ${name} environment variable must be a postgres:// URL`);
      expect(parse).not.toThrow(/secret/);
    }
    // Unused (no --storage postgres, or --database-url given): not checked.
    expect(options(["dev"], { DATABASE_URI: "nonsense" }).storage).toBe("sqlite");
    expect(options([...postgres, "--database-url", "postgres://flag/d"], { DATABASE_URI: "nonsense" }).databaseUrl).toBe(
      "postgres://flag/d",
    );
  });

  it("N_JOBS_PER_WORKER is the worker count unless --workers or -n is given", () => {
    expect(options(["serve"], { N_JOBS_PER_WORKER: "4" }).workers).toBe(4);
    expect(options(["dev"], { N_JOBS_PER_WORKER: "4" }).workers).toBe(4);
    expect(options(["serve", "--workers", "2"], { N_JOBS_PER_WORKER: "4" }).workers).toBe(2);
    expect(options(["serve", "-n", "3"], { N_JOBS_PER_WORKER: "4" }).workers).toBe(3);
    expect(options(["serve"], { N_JOBS_PER_WORKER: "" }).workers).toBe(10);
    for (const bad of ["0", "four", "1001", "2.5"]) {
      expect(() => parseCli(["serve"], { N_JOBS_PER_WORKER: bad })).toThrow(EnvironmentError);
      expect(() => parseCli(["serve"], { N_JOBS_PER_WORKER: bad })).toThrow(
        `the N_JOBS_PER_WORKER environment variable must be an integer from 1 to 1000 (got '${bad}')`,
      );
    }
  });

  it("PORT is serve's port unless --port is given; dev keeps 2024", () => {
    expect(options(["serve"], { PORT: "8000" }).port).toBe(8000);
    expect(options(["serve", "--port", "9000"], { PORT: "8000" }).port).toBe(9000);
    expect(options(["serve"], { PORT: "" }).port).toBe(8123);
    expect(options(["dev"], { PORT: "8000" }).port).toBe(2024);
    expect(options(["dev"], { PORT: "not checked: dev does not read it" }).port).toBe(2024);
    expect(() => parseCli(["serve"], { PORT: "80a" })).toThrow(
      "the PORT environment variable must be an integer from 0 to 65535 (got '80a')",
    );
    expect(() => parseCli(["serve"], { PORT: "70000" })).toThrow(EnvironmentError);
  });

  it("an invalid variable exits 2 with one line naming it (no usage: the command line was fine)", async () => {
    for (const [env, name] of [
      [{ PORT: "eighty" }, "PORT"],
      [{ N_JOBS_PER_WORKER: "-1" }, "N_JOBS_PER_WORKER"],
    ] as const) {
      const run = runCli(["serve", "--config", EXAMPLE_CONFIG, "--storage", "memory"], { env });
      expect(await run.exited).toBe(2);
      expect(run.stderr()).toMatch(new RegExp(`^agent-server: the ${name} environment variable must be [^\\n]+\\n$`));
    }
    const url = runCli(["migrate", "--storage", "postgres"], { env: { DATABASE_URI: "mysql://db/x" } });
    expect(await url.exited).toBe(2);
    expect(url.stderr()).toBe("agent-server: the DATABASE_URI environment variable must be a postgres:// URL\n");
  });

  it("serve listens on PORT and runs N_JOBS_PER_WORKER workers", async () => {
    const server = await startCli(["serve", "--config", EXAMPLE_CONFIG, "--storage", "memory", "--host", "127.0.0.1"], {
      env: { PORT: "0", N_JOBS_PER_WORKER: "3" },
    });
    expect(Number(new URL(server.url).port)).not.toBe(8123); // 0 from PORT: a free port
    const listening = server
      .stdout()
      .split("\n")
      .filter((line) => line.includes("listening on"))
      .map((line) => JSON.parse(line));
    expect(listening).toMatchObject([{ workers: 3 }]);
  });

  it("variables set only in langgraph.json's env file count as exported ones; flags still win", async () => {
    // A project from `agent-server new`: its langgraph.json names .env.
    const project = newProjectInTemp();
    try {
      writeFileSync(join(project.dir, ".env"), "PORT=0\nN_JOBS_PER_WORKER=4\n");
      const serve = ["serve", "--config", project.config, "--storage", "memory", "--host", "127.0.0.1"];
      const fromFile = await startCli(serve);
      expect(Number(new URL(fromFile.url).port)).not.toBe(8123); // 0 from the .env's PORT: a free port
      expect(listeningLine(fromFile.stdout())).toMatchObject({ workers: 4 });
      const flagged = await startCli([...serve, "--workers", "2"]);
      expect(listeningLine(flagged.stdout())).toMatchObject({ workers: 2 });
    } finally {
      project.remove();
    }
  });

  describe("on PostgreSQL", () => {
    let schema: TestSchema | undefined;
    afterEach(async () => {
      await schema?.drop();
      schema = undefined;
    });

    it("migrate --storage postgres opens the database DATABASE_URI names", async () => {
      schema = await createTestSchema("cli_database_uri");
      const run = runCli(["migrate", "--storage", "postgres", "--database-schema", schema.schema], { env: { DATABASE_URI: schema.url } });
      expect(await run.exited, run.stderr()).toBe(0);
      expect(run.stdout()).toContain(`schema ${schema.schema})`);
      expect(run.stdout()).toMatch(/Applied \d+ migration\(s\)/);
    });
  });
});
