import { execFile, spawn } from "node:child_process";
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { setTimeout as sleep } from "node:timers/promises";
import { promisify } from "node:util";
import { ClientFactory } from "@a2a-js/sdk/client";
import { SendMessageRequest, TaskState, type Task } from "@a2a-js/sdk";
import Database from "better-sqlite3";
import { dockerfileStages, freePort, imageRuntime, moduleLog, replayBuildStage } from "@agent-server/server/testing";
import { createTestSchema, type TestSchema } from "@agent-server/testing/postgres";
import { Client } from "@langchain/langgraph-sdk";
import { Client as McpClient } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { buildPackage, REPO_ROOT } from "./build.js";
import { createUserProject, signalGroup, stopAll, type ServerProcess, type UserProject } from "./project.js";

/**
 * The published package as a user gets it (issue 26): `npm run package`'s tarball, installed into a
 * fresh project of the user's own outside the repository (`@langchain/langgraph` 1.5.0), and run there
 * with `npx agent-server`: dev on SQLite under the project with the official SDK, A2A and MCP clients;
 * migrate and serve on PostgreSQL; publint and arethetypeswrong on the tarball.
 */
const run = promisify(execFile);
let tarball: string;
let project: UserProject;

beforeAll(async () => {
  tarball = await buildPackage();
  project = await createUserProject(tarball);
}, 900_000);

afterEach(async () => {
  await stopAll();
});

afterAll(async () => {
  await stopAll();
  if (project) rmSync(project.dir, { recursive: true, force: true });
});

/** Every `@langchain/langgraph/package.json` under `dir`'s node_modules (what `find -path` would list). */
function langGraphCopies(dir: string): string[] {
  const found: string[] = [];
  const walk = (folder: string) => {
    for (const entry of readdirSync(folder)) {
      const path = join(folder, entry);
      if (!statSync(path).isDirectory()) continue;
      if (path.endsWith(join("@langchain", "langgraph")) && existsSync(join(path, "package.json"))) found.push(path);
      walk(path);
    }
  };
  walk(join(dir, "node_modules"));
  return found;
}

async function say(base: string, text: string, contextId?: string): Promise<Task> {
  const client = await new ClientFactory().createFromUrl(`${base}/a2a/echo/`);
  const result = await client.sendMessage(
    SendMessageRequest.fromJSON({ message: { messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text }], contextId } }),
  );
  if (!("status" in result)) throw new Error(`expected a task, got ${JSON.stringify(result)}`);
  return result;
}

/**
 * SIGINT to the process group, as a terminal's Ctrl-C sends it (npm exec does not pass signals on: sent
 * to npx alone, the server would be left running). The server drains, logs "stopped" and lets go of its
 * port; npx ends by the signal itself.
 */
async function stopsCleanly(server: ServerProcess, base: string): Promise<void> {
  signalGroup(server.child, "SIGINT");
  const deadline = Date.now() + 30_000;
  while (!/"msg":"stopped"|INFO: stopped/.test(server.output()) && Date.now() < deadline) await sleep(100);
  expect(server.output()).toMatch(/"msg":"stopped"|INFO: stopped/);
  await server.exited;
  await expect(fetch(`${base}/ok`)).rejects.toThrow();
}

function artifactTexts(task: Task): string[] {
  return task.artifacts.flatMap((a) => a.parts.flatMap((p) => (p.content?.$case === "text" ? [p.content.value] : [])));
}

describe("the agent-server package installed into a user's project", () => {
  it("is one tarball publint and arethetypeswrong accept, and the project holds one copy of LangGraph", async () => {
    const bin = join(REPO_ROOT, "node_modules/.bin");
    await run(join(bin, "publint"), ["--strict", tarball]);
    await run(join(bin, "attw"), [tarball, "--profile", "esm-only"]);
    expect(langGraphCopies(project.dir)).toEqual([join(project.dir, "node_modules/@langchain/langgraph")]);
    // Our own sources, the test harness, the fuzz campaign and the crash loop stay out of the package.
    const { stdout } = await run("tar", ["-tzf", tarball]);
    expect(stdout).not.toMatch(/\.test\.|\/fuzz|crash-loop|\/src\//);
  });

  it("npx agent-server dev: SQLite under the project; the SDK, A2A and MCP clients against it", async () => {
    const port = await freePort();
    const dev = project.agentServer(["dev", "--port", String(port), "--no-browser"]);
    await dev.waitFor(/listening on http:\/\/127\.0\.0\.1:\d+/, 120_000);
    const base = `http://127.0.0.1:${port}`;
    expect(existsSync(join(project.dir, ".agent-server/agent-server.sqlite"))).toBe(true);

    // The interrupt graph runs to its interrupt, and a resume finishes it.
    const client = new Client({ apiUrl: base });
    const thread = await client.threads.create();
    const interrupted = await client.runs.wait(thread.thread_id, "approval", { input: { request: "deploy" } });
    expect(interrupted).toMatchObject({ __interrupt__: [expect.objectContaining({ value: expect.anything() })] });
    expect((await client.threads.get(thread.thread_id)).status).toBe("interrupted");
    await client.runs.wait(thread.thread_id, "approval", { command: { resume: true } });
    expect((await client.threads.get(thread.thread_id)).status).toBe("idle");

    // A2A: a second turn in the context leaves the first task's artifact as it was.
    const first = await say(base, "first");
    expect(first.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const second = await say(base, "second", first.contextId);
    expect(second.id).not.toBe(first.id);
    const a2a = await new ClientFactory().createFromUrl(`${base}/a2a/echo/`);
    expect(artifactTexts(await a2a.getTask({ tenant: "", id: first.id }))).toEqual(artifactTexts(first));
    expect(artifactTexts(first).join(" ")).toContain("first");

    // agent-server/a2a from the installed package: relay calls echo over A2A, durably.
    const relayed = (await client.runs.wait(null, "relay", { input: { messages: [{ role: "user", content: "via relay" }] } })) as {
      messages: Array<{ content: string; response_metadata?: { a2a?: { state: string } } }>;
    };
    expect(relayed.messages.at(-1)).toMatchObject({ content: "echo: via relay", response_metadata: { a2a: { state: "completed" } } });

    // MCP: every assistant a tool.
    const mcp = new McpClient({ name: "tarball-test", version: "1.0.0" });
    await mcp.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`)));
    const { tools } = await mcp.listTools();
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(["echo", "approval", "relay"]));
    await mcp.close();

    // /inspector (on in dev): the page and every module its import map names, from the package itself.
    const page = await (await fetch(`${base}/inspector`)).text();
    const imports = Object.values(
      (JSON.parse(page.match(/<script type="importmap">([\s\S]*?)<\/script>/)![1]!) as { imports: Record<string, string> }).imports,
    );
    expect(imports).toHaveLength(4);
    for (const path of [...imports.map((p) => p.replace(/^\.\//, "")), "inspector/assets/app.js", "inspector/assets/inspector.css"]) {
      expect((await fetch(`${base}/${path}`)).status, path).toBe(200);
    }

    // The WAL is copied into the database file by the package's checkpoint worker (far fewer pages than
    // SQLite's own automatic checkpoint waits for): the file alone already holds the thread made above.
    await vi.waitFor(() => expect(threadsInFileAlone(join(project.dir, ".agent-server/agent-server.sqlite"))).toContain(thread.thread_id), {
      timeout: 10_000,
      interval: 100,
    });

    await stopsCleanly(dev, base);
  });

  it("npx agent-server serve: the graphs run on the server's own LangGraph instance; MCP loads on its first request", async () => {
    const modules = moduleLog();
    const port = await freePort();
    const serve = project.agentServer(["serve", "--port", String(port), "--host", "127.0.0.1"], modules.env);
    await serve.waitFor(/listening on/, 120_000);
    const base = `http://127.0.0.1:${port}`;
    const langGraph = join(project.dir, "node_modules/@langchain/langgraph/dist/index.js");
    const atStart = modules.loaded();
    // Loaded once (tsx registered for the process, no scope of the graphs' own), the graph files as they are.
    expect(atStart.filter((url) => url.replace(/\?.*$/, "") === pathToFileURL(langGraph).href)).toHaveLength(1);
    expect(atStart.filter((url) => url.includes("tsx-namespace"))).toEqual([]);
    expect(atStart).toContain(pathToFileURL(join(project.dir, "src/echo.ts")).href);
    expect(atStart.filter((url) => /\/@modelcontextprotocol\/sdk\/|\/@grpc\/grpc-js\//.test(url))).toEqual([]);

    const done = await new Client({ apiUrl: base }).runs.wait(null, "echo", { input: { messages: [{ role: "user", content: "shared" }] } });
    expect(JSON.stringify(done)).toContain("echo: shared");
    const mcp = new McpClient({ name: "tarball-test", version: "1.0.0" });
    await mcp.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`)));
    expect((await mcp.listTools()).tools.map((t) => t.name)).toContain("echo");
    await mcp.close();
    expect(modules.loaded().some((url) => url.includes("/@modelcontextprotocol/sdk/"))).toBe(true);
    await stopsCleanly(serve, base);
    modules.dispose();
  });

  it("npx agent-server serve --grpc-port: the A2A gRPC binding loads from the installed package", async () => {
    const port = await freePort();
    const serve = project.agentServer(["serve", "--port", String(port), "--host", "127.0.0.1", "--grpc-port", "0"]);
    await serve.waitFor(/A2A gRPC listening on/, 120_000);
    const base = `http://127.0.0.1:${port}`;
    const card = (await (await fetch(`${base}/a2a/echo/.well-known/agent-card.json`)).json()) as {
      supportedInterfaces: { protocolBinding: string }[];
    };
    expect(card.supportedInterfaces.map((i) => i.protocolBinding)).toContain("GRPC");
    await stopsCleanly(serve, base);
  });

  it("npx agent-server dockerfile: the build's steps replayed in a clean copy, then the image's command serves", async () => {
    const written = project.agentServer(["dockerfile"]);
    expect(await written.exited, written.output()).toBe(0);
    const [build, runtime] = dockerfileStages(readFileSync(join(project.dir, "Dockerfile"), "utf8"));
    const app = mkdtempSync(join(tmpdir(), "agent-server-image-"));
    try {
      replayBuildStage(build!, project.dir, app);
      const image = imageRuntime(runtime!);
      expect(image.command.slice(0, 2)).toEqual(["node_modules/.bin/agent-server", "serve"]);
      const port = await freePort();
      const server = spawn(image.command[0]!, image.command.slice(1), {
        cwd: app,
        env: { ...process.env, ...image.env, PORT: String(port), POSTGRES_URL: "" },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let output = "";
      server.stdout.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
      server.stderr.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
      const exited = new Promise<number | null>((resolve) => server.once("exit", (code) => resolve(code)));
      const deadline = Date.now() + 60_000;
      while (
        !(await fetch(`http://127.0.0.1:${port}/ok`).then(
          (r) => r.ok,
          () => false,
        )) &&
        Date.now() < deadline
      )
        await sleep(200);
      // The image's HEALTHCHECK, as Docker would run it inside the container.
      const [node, ...args] = image.healthCheck;
      expect(node).toBe("node");
      await run(process.execPath, args, { env: { ...process.env, PORT: String(port) } });
      const answer = await new Client({ apiUrl: `http://127.0.0.1:${port}` }).runs.wait(null, "echo", {
        input: { messages: [{ role: "user", content: "in the image" }] },
      });
      expect(JSON.stringify(answer)).toContain("in the image");
      // What tini passes on from `docker stop`: the server drains and exits 0.
      server.kill("SIGTERM");
      expect(await exited, output).toBe(0);
    } finally {
      rmSync(app, { recursive: true, force: true });
    }
  });

  describe("on PostgreSQL", () => {
    let schema: TestSchema | undefined;
    afterEach(async () => {
      await schema?.drop();
    });

    it("npx agent-server migrate, then serve", async () => {
      schema = await createTestSchema("tarball");
      const env = { POSTGRES_URL: schema.url };
      const migrate = project.agentServer(["migrate", "--storage", "postgres", "--database-schema", schema.schema], env);
      expect(await migrate.exited, migrate.output()).toBe(0);
      expect(migrate.output()).toMatch(/Applied \d+ migration/);
      const port = await freePort();
      const serve = project.agentServer(
        ["serve", "--storage", "postgres", "--database-schema", schema.schema, "--port", String(port), "--host", "127.0.0.1"],
        env,
      );
      await serve.waitFor(/listening on/, 120_000);
      const client = new Client({ apiUrl: `http://127.0.0.1:${port}` });
      const done = await client.runs.wait(null, "echo", { input: { messages: [{ role: "user", content: "on postgres" }] } });
      expect(JSON.stringify(done)).toContain("on postgres");
      await stopsCleanly(serve, `http://127.0.0.1:${port}`);
    });
  });
});

/** The thread ids a SQLite database file holds without its WAL (read from a copy of the file alone). */
function threadsInFileAlone(file: string): string[] {
  const dir = mkdtempSync(join(tmpdir(), "file-alone-"));
  const copy = join(dir, "copy.sqlite");
  copyFileSync(file, copy);
  const db = new Database(copy, { readonly: true });
  try {
    if (!db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'threads'").get()) return [];
    return (db.prepare("SELECT thread_id FROM threads").all() as { thread_id: string }[]).map((row) => row.thread_id);
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
