import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { InvalidInputError } from "@agent-server/core";
import { applyEnv, loadLangGraphConfig } from "./langgraph-config.js";

const fixture = resolve(import.meta.dirname, "../../test/fixtures/project/langgraph.json");

describe("loadLangGraphConfig", () => {
  const dirs: string[] = [];
  afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

  function write(content: string): string {
    const dir = mkdtempSync(join(tmpdir(), "lgcfg-"));
    dirs.push(dir);
    const path = join(dir, "langgraph.json");
    writeFileSync(path, content);
    return path;
  }

  it("reads graphs, env file, auth.path, http.app and node_version relative to the config", async () => {
    const loaded = await loadLangGraphConfig(fixture);
    expect(loaded.cwd).toBe(resolve(import.meta.dirname, "../../test/fixtures/project"));
    expect(Object.keys(loaded.config.graphs)).toEqual(["compiled", "builder", "factory", "default_export"]);
    expect(loaded.env).toEqual({ ECHO_PREFIX: "from-env", OTHER: "quoted value" });
    expect(loaded.config.auth?.path).toBe("./auth.ts:auth");
    expect(loaded.config.http?.app).toBe("./app.ts:app");
    expect(loaded.config.node_version).toBe("20");
  });

  it("accepts env as an object and keeps existing process variables", async () => {
    const loaded = await loadLangGraphConfig(write(JSON.stringify({ graphs: {}, env: { A_TEST_VAR: "1", PATH: "nope" } })));
    expect(loaded.env).toEqual({ A_TEST_VAR: "1", PATH: "nope" });
    const path = process.env.PATH;
    applyEnv(loaded.env);
    expect(process.env.A_TEST_VAR).toBe("1");
    expect(process.env.PATH).toBe(path);
    delete process.env.A_TEST_VAR;
  });

  it.each([
    ["not JSON", "{", /not valid JSON/],
    ["no graphs", "{}", /graphs/],
    ["a bad graph spec", JSON.stringify({ graphs: { g: "./a.ts:b:c" } }), /graphs\.g/],
  ])("refuses %s with a clear error", async (_label, content, message) => {
    await expect(loadLangGraphConfig(write(content))).rejects.toThrow(InvalidInputError);
    await expect(loadLangGraphConfig(write(content))).rejects.toThrow(message);
  });

  it("reads both forms of a graphs entry: a spec, and { path, description }", async () => {
    const graphs = { plain: "./a.ts:graph", described: { path: "./b.ts:graph", description: "Answers questions" } };
    const loaded = await loadLangGraphConfig(write(JSON.stringify({ graphs })));
    expect(loaded.config.graphs).toEqual(graphs);
  });

  it.each([
    ["a bad path in the object form", { g: { path: "./a.ts:b:c" } }, /graphs\.g\.path: expected '\.\/file\.ts:exportName'/],
    ["an object without a path", { g: { description: "x" } }, /graphs\.g: expected '\.\/file\.ts:exportName' or \{ "path"/],
    ["a description that is not a string", { g: { path: "./a.ts:graph", description: 3 } }, /graphs\.g: expected/],
  ])("refuses %s with a clear error", async (_label, graphs, message) => {
    await expect(loadLangGraphConfig(write(JSON.stringify({ graphs })))).rejects.toThrow(message);
  });

  it("reads http.cors with the official keys", async () => {
    const cors = {
      allow_origins: ["https://app.example"],
      allow_origin_regex: "https://.*\\.example",
      allow_methods: ["GET", "POST"],
      allow_headers: ["Content-Type"],
      allow_credentials: true,
      expose_headers: ["X-Request-Id"],
      max_age: 600,
    };
    const loaded = await loadLangGraphConfig(write(JSON.stringify({ graphs: {}, http: { cors } })));
    expect(loaded.config.http?.cors).toEqual(cors);
  });

  it.each([
    ["a misspelt key", { allowed_origins: ["*"] }, /http\.cors: Unrecognized key: "allowed_origins"/],
    ["a negative max_age", { max_age: -1 }, /http\.cors\.max_age/],
    ["origins given as a string", { allow_origins: "*" }, /http\.cors\.allow_origins/],
    ["a broken regex", { allow_origin_regex: "(" }, /http\.cors\.allow_origin_regex: not a valid regular expression/],
  ])("refuses http.cors with %s, naming the key", async (_label, cors, message) => {
    await expect(loadLangGraphConfig(write(JSON.stringify({ graphs: {}, http: { cors } })))).rejects.toThrow(message);
  });

  it("reads http.max_body_size as a positive whole number of bytes", async () => {
    const loaded = await loadLangGraphConfig(write(JSON.stringify({ graphs: {}, http: { max_body_size: 1048576 } })));
    expect(loaded.config.http?.max_body_size).toBe(1048576);
    for (const bad of [0, -1, 1.5, "25MB"]) {
      await expect(loadLangGraphConfig(write(JSON.stringify({ graphs: {}, http: { max_body_size: bad } })))).rejects.toThrow(
        /http\.max_body_size/,
      );
    }
  });

  it("reads a2a.grpc_port as a port number (0 picks a free one)", async () => {
    for (const port of [0, 50051, 65535]) {
      const loaded = await loadLangGraphConfig(write(JSON.stringify({ graphs: {}, a2a: { grpc_port: port } })));
      expect(loaded.config.a2a?.grpc_port).toBe(port);
    }
    for (const bad of [-1, 65536, 1.5, "50051"]) {
      await expect(loadLangGraphConfig(write(JSON.stringify({ graphs: {}, a2a: { grpc_port: bad } })))).rejects.toThrow(/a2a\.grpc_port/);
    }
  });

  it("reads ui and ui_config.shared, and refuses them with the key named when they are not strings", async () => {
    const loaded = await loadLangGraphConfig(
      write(JSON.stringify({ graphs: {}, ui: { agent: "./ui.tsx" }, ui_config: { shared: ["@acme/ds"] } })),
    );
    expect(loaded.config.ui).toEqual({ agent: "./ui.tsx" });
    expect(loaded.config.ui_config?.shared).toEqual(["@acme/ds"]);
    await expect(loadLangGraphConfig(write(JSON.stringify({ graphs: {}, ui: { agent: 5 } })))).rejects.toThrow(/: ui\.agent: /);
    await expect(loadLangGraphConfig(write(JSON.stringify({ graphs: {}, ui_config: { shared: "react-router" } })))).rejects.toThrow(
      /: ui_config\.shared: /,
    );
  });

  it("refuses a missing file", async () => {
    await expect(loadLangGraphConfig("/nonexistent/langgraph.json")).rejects.toThrow(/cannot read/);
  });
});
