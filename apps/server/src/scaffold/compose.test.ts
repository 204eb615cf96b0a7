import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@langchain/langgraph-sdk";
import { createTestDatabase, type TestDatabase } from "@agent-server/testing/postgres";
import { afterEach, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { parseCli } from "../cli/index.js";
import { killAll, runCli } from "../../test/support/cli-process.js";
import { newProjectInTemp, runHealthCheck, type TempProject } from "../../test/support/scaffolded-project.js";

afterEach(killAll);

interface Service {
  image?: string;
  build?: { context: string; dockerfile: string };
  command?: string[];
  environment?: Record<string, string>;
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test?: string[]; disable?: boolean };
  ports?: string[];
  restart?: string;
}

/** Compose's `${NAME:-default}` with nothing set: the default. */
const interpolateDefaults = (value: string) => value.replace(/\$\{\w+:-([^}]*)\}/g, "$1");

describe("agent-server compose", () => {
  let project: TempProject | undefined;
  let database: TestDatabase | undefined;
  afterEach(async () => {
    await killAll(); // the servers hold connections: stop them before the database is dropped
    await database?.drop();
    project?.remove();
    project = database = undefined;
  });

  function writeCompose(...args: string[]) {
    project ??= newProjectInTemp();
    return runCli(["compose", "--config", project.config, ...args]);
  }

  it("wires postgres (healthy), a one-off migrate, then two API processes on the same DATABASE_URI", async () => {
    const run = writeCompose();
    expect(await run.exited, run.stderr()).toBe(0);
    expect(run.stdout()).toContain("run `npx agent-server dockerfile`"); // the project has no Dockerfile yet
    const { services, volumes } = parse(readFileSync(join(project!.dir, "compose.yaml"), "utf8")) as {
      services: Record<string, Service>;
      volumes: Record<string, unknown>;
    };
    expect(Object.keys(services)).toEqual(["postgres", "migrate", "api-1", "api-2"]);
    const { postgres, migrate } = services;
    const apis = [services["api-1"], services["api-2"]];

    expect(postgres.image).toBe("postgres:16");
    expect(postgres.healthcheck!.test).toEqual(["CMD-SHELL", "pg_isready -U agent -d agent"]);
    expect(Object.keys(volumes)).toEqual(["postgres-data"]);

    expect(migrate.build).toEqual({ context: ".", dockerfile: "Dockerfile" });
    expect(migrate.command!.slice(1)).toEqual(["migrate", "--config", "langgraph.json", "--storage", "postgres"]);
    expect(migrate.depends_on).toEqual({ postgres: { condition: "service_healthy" } });
    expect(migrate.restart).toBe("no");

    const uri = migrate.environment!.DATABASE_URI;
    expect(interpolateDefaults(uri)).toBe("postgres://agent:agent@postgres:5432/agent");
    expect(interpolateDefaults(postgres.environment!.POSTGRES_PASSWORD)).toBe("agent");
    for (const api of apis) {
      expect(api.build).toEqual(migrate.build);
      expect(api.environment).toEqual({ DATABASE_URI: uri });
      expect(api.depends_on).toEqual({
        postgres: { condition: "service_healthy" },
        migrate: { condition: "service_completed_successfully" },
      });
      expect(api.healthcheck!.test!.slice(0, 2)).toEqual(["node", "-e"]);
      expect(api.healthcheck!.test![2]).toContain("/ready");
    }
    expect(apis.map((api) => api.ports)).toEqual([["8000:8000"], ["8001:8000"]]);

    // What the image's server makes of it (PORT=8000 is the Dockerfile's ENV): postgres at the compose URL.
    const env = { DATABASE_URI: interpolateDefaults(uri), PORT: "8000" };
    for (const command of [migrate.command!, apis[0].command!]) {
      const parsed = parseCli(command.slice(1), env);
      expect(parsed.kind === "run" && parsed.options).toMatchObject({ storage: "postgres", databaseUrl: env.DATABASE_URI });
    }
    const serve = parseCli(apis[0].command!.slice(1), env);
    expect(serve.kind === "run" && serve.options).toMatchObject({ command: "serve", host: "0.0.0.0", port: 8000 });
  });

  it("replayed without Docker on a real PostgreSQL: migrate exits 0, then an API process answers /ready and runs the graph", async () => {
    const run = writeCompose();
    expect(await run.exited, run.stderr()).toBe(0);
    const { services } = parse(readFileSync(join(project!.dir, "compose.yaml"), "utf8")) as { services: Record<string, Service> };
    database = await createTestDatabase("compose");
    // The container's environment, with this test's database in place of the compose network's.
    const env = { DATABASE_URI: database.url, PORT: "0" };

    const migrate = runCli(services.migrate.command!.slice(1), { env, cwd: project!.dir });
    expect(await migrate.exited, migrate.stderr()).toBe(0);
    expect(migrate.stdout()).toMatch(/Applied \d+ migration\(s\)/);

    const api = runCli(services["api-1"].command!.slice(1), { env, cwd: project!.dir });
    const [, port] = await api.waitFor(/listening on http:\/\/[^\s"]+:(\d+)/);
    expect(await runHealthCheck(services["api-1"].healthcheck!.test!, Number(port))).toBe(0);
    const client = new Client({ apiUrl: `http://127.0.0.1:${port}` });
    const state = (await client.runs.wait(null, "agent", { input: { messages: [{ role: "user", content: "compose" }] } })) as {
      messages: { content: string }[];
    };
    expect(state.messages.at(-1)!.content).toBe("You said: compose");
  });

  it("-o elsewhere: the build context is the project, relative to the compose file; refuses to overwrite unless --force", async () => {
    project = newProjectInTemp();
    writeFileSync(join(project.dir, "Dockerfile"), "FROM node:20-slim\n");
    mkdirSync(join(project.dir, "deploy"));
    const out = join(project.dir, "deploy", "compose.yaml");
    const first = writeCompose("-o", out);
    expect(await first.exited, first.stderr()).toBe(0);
    expect(first.stdout()).not.toContain("does not exist yet");
    const { services } = parse(readFileSync(out, "utf8")) as { services: Record<string, Service> };
    expect(services.migrate.build).toEqual({ context: "..", dockerfile: "Dockerfile" });

    const refused = writeCompose("-o", out);
    expect(await refused.exited).toBe(2);
    expect(refused.stderr()).toMatch(/^agent-server compose: .*compose\.yaml already exists: pass --force to overwrite it\n$/);
    const forced = writeCompose("--out", out, "--force");
    expect(await forced.exited, forced.stderr()).toBe(0);
  });
});
