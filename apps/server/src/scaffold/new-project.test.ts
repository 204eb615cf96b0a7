import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@langchain/langgraph-sdk";
import ts from "typescript";
import { afterEach, describe, expect, it } from "vitest";
import { killAll, memoryDevArgs, runCli, startCli } from "../../test/support/cli-process.js";
import { VERSION } from "../version.js";
import { packageName } from "./new-project.js";
import { newProjectInTemp, type TempProject } from "../../test/support/scaffolded-project.js";

afterEach(killAll);

describe("agent-server new <dir>", () => {
  let parent: string | undefined;
  let project: TempProject | undefined;
  afterEach(() => {
    if (parent) rmSync(parent, { recursive: true, force: true });
    project?.remove();
    parent = project = undefined;
  });

  it("writes the project's files, prints them and the next two commands", async () => {
    parent = mkdtempSync(join(tmpdir(), "agent-server-new-"));
    const run = runCli(["new", "My Agent"], { cwd: parent });
    expect(await run.exited, run.stderr()).toBe(0);
    const dir = join(parent, "My Agent");
    expect(readdirSync(dir, { recursive: true }).sort()).toEqual(
      [".env.example", ".gitignore", "README.md", "langgraph.json", "package.json", "src", "src/agent.ts"].sort(),
    );
    const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
    expect(manifest).toEqual({
      name: "my-agent",
      private: true,
      type: "module",
      scripts: { dev: "agent-server dev", start: "agent-server serve" },
      dependencies: {
        "@langchain/core": "^1.4.0",
        "@langchain/langgraph": "^1.7.3",
        "@langchain/langgraph-checkpoint": "^1.2.2",
        "agent-server": `^${VERSION}`,
      },
      allowScripts: { "better-sqlite3": true, esbuild: true, protobufjs: false },
    });
    const config = JSON.parse(readFileSync(join(dir, "langgraph.json"), "utf8"));
    expect(config).toEqual({ node_version: "20", graphs: { agent: "./src/agent.ts:graph" }, env: ".env" });
    const readme = readFileSync(join(dir, "README.md"), "utf8");
    for (const text of ["npm install", "npx agent-server dev", "http://localhost:2024", "/docs", "npx agent-server dockerfile"])
      expect(readme).toContain(text);
    expect(readFileSync(join(dir, ".gitignore"), "utf8").split("\n")).toEqual(
      expect.arrayContaining(["node_modules/", ".agent-server/", "*.sqlite*"]),
    );
    expect(run.stdout()).toContain("  src/agent.ts\n");
    expect(run.stdout()).toContain("  cd 'My Agent' && npm install\n  npx agent-server dev\n");
  });

  it("refuses a folder that is not empty (exit 2, one line) and writes nothing; an empty one is fine", async () => {
    parent = mkdtempSync(join(tmpdir(), "agent-server-new-"));
    mkdirSync(join(parent, "taken"));
    writeFileSync(join(parent, "taken", "notes.txt"), "mine");
    const refused = runCli(["new", "taken"], { cwd: parent });
    expect(await refused.exited).toBe(2);
    expect(refused.stderr()).toBe("agent-server new: taken exists and is not empty: choose a new or empty folder\n");
    expect(readdirSync(join(parent, "taken"))).toEqual(["notes.txt"]);

    mkdirSync(join(parent, "empty"));
    const accepted = runCli(["new", "empty"], { cwd: parent });
    expect(await accepted.exited, accepted.stderr()).toBe(0);
    expect(readdirSync(join(parent, "empty"))).toContain("langgraph.json");

    const missing = runCli(["new"], { cwd: parent });
    expect(await missing.exited).toBe(2);
    expect(missing.stderr()).toContain("new needs a folder: agent-server new <dir>");
  });

  it("the generated graph runs on the server: one run answers with the echo of the message", async () => {
    project = newProjectInTemp();
    const server = await startCli(memoryDevArgs(project.config));
    const client = new Client({ apiUrl: server.url });
    const state = (await client.runs.wait(null, "agent", { input: { messages: [{ role: "user", content: "hello there" }] } })) as {
      messages: { type: string; content: string }[];
    };
    expect(state.messages.map((message) => [message.type, message.content])).toEqual([
      ["human", "hello there"],
      ["ai", "You said: hello there"],
    ]);
  });

  it("the generated graph type-checks as a user's strict NodeNext project would compile it", () => {
    project = newProjectInTemp();
    const program = ts.createProgram([join(project.dir, "src/agent.ts")], {
      strict: true,
      noEmit: true,
      skipLibCheck: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      types: [],
    });
    const messages = ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"));
    expect(messages).toEqual([]);
  });

  it("names the package after the folder, as npm allows", () => {
    expect(packageName("My Agent")).toBe("my-agent");
    expect(packageName(".hidden_Thing!")).toBe("hidden_thing");
    expect(packageName("___")).toBe("agent-project");
  });
});
