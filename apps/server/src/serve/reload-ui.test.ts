import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { jsonLines, killAll, startCli } from "../../test/support/cli-process.js";
import { watchTargets } from "./reload.js";

const ECHO = fileURLToPath(new URL("../../../../examples/src/echo.ts", import.meta.url));

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "agent-server-reload-ui-"));
});
afterEach(async () => {
  await killAll();
  rmSync(dir, { recursive: true, force: true });
});

const listening = (text: string) => jsonLines(text).filter((l) => typeof l.url === "string");

/** A project whose generative UI lives in a folder of its own (web/), with a stylesheet. */
function writeProject(label: string, color: string): string {
  mkdirSync(join(dir, "web"), { recursive: true });
  writeFileSync(join(dir, "web", "ui.tsx"), `import "./ui.css";\nexport default { label: () => <b>${label}</b> };\n`);
  writeFileSync(join(dir, "web", "ui.css"), `b { color: ${color}; }\n`);
  const config = join(dir, "langgraph.json");
  writeFileSync(config, JSON.stringify({ graphs: { echo: `${ECHO}:graph` }, ui: { echo: "./web/ui.tsx" } }));
  return config;
}

describe("agent-server dev reload with generative UI", () => {
  it("watches the folders of ui entries", async () => {
    const config = writeProject("v1", "red");
    expect(await watchTargets(config)).toContainEqual({ path: join(dir, "web"), recursive: true });
  });

  it("bundles the ui again when a component or its stylesheet changes", async () => {
    const config = writeProject("version one", "red");
    const server = await startCli(["dev", "--config", config, "--port", "0", "--storage", "memory", "--log-format", "json"]);
    const asset = (name: string) => fetch(`${server.url}/ui/echo/${name}`).then((r) => r.text());
    expect(await asset("entrypoint.js")).toContain('"version one"');

    writeFileSync(join(dir, "web", "ui.tsx"), `import "./ui.css";\nexport default { label: () => <b>version two</b> };\n`);
    await server.waitFor(/(listening on[^\n]*\n[\s\S]*){2}/);
    expect(listening(server.stdout())[1].url).toBe(server.url);
    expect(await asset("entrypoint.js")).toContain('"version two"');

    writeFileSync(join(dir, "web", "ui.css"), `b { color: blue; }\n`);
    await server.waitFor(/(listening on[^\n]*\n[\s\S]*){3}/);
    expect(await asset("entrypoint.css")).toContain("blue");
  });
});
