import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { InvalidInputError } from "@agent-server/core";
import { loadLangGraphConfig } from "./langgraph-config.js";
import { unsupportedConfigKeys } from "./unsupported-keys.js";

/** langgraph.json `mcp` and `http.disable_mcp`, read through loadLangGraphConfig from real files, as the server reads them. */
describe("langgraph.json mcp block and http.disable_mcp", () => {
  const dirs: string[] = [];
  afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

  function write(extra: Record<string, unknown>): string {
    const dir = mkdtempSync(join(tmpdir(), "lgcfg-mcp-"));
    dirs.push(dir);
    const path = join(dir, "langgraph.json");
    writeFileSync(path, JSON.stringify({ graphs: { agent: "./agent.ts:graph" }, ...extra }));
    return path;
  }

  it("reads the assistants list, the mode and http.disable_mcp, and reports none of them as unsupported", async () => {
    const { config } = await loadLangGraphConfig(
      write({
        mcp: { assistants: ["agent", "6c1f1c3a-0d55-4b59-9a4c-7f3b8a0f1e22"], mode: "session" },
        http: { disable_mcp: true },
      }),
    );
    expect(config.mcp).toEqual({ assistants: ["agent", "6c1f1c3a-0d55-4b59-9a4c-7f3b8a0f1e22"], mode: "session" });
    expect(config.http?.disable_mcp).toBe(true);
    expect(unsupportedConfigKeys(config)).toEqual([]);
    expect((await loadLangGraphConfig(write({ mcp: {} }))).config.mcp).toEqual({});
  });

  it.each([
    [{ mcp: { assistants: [] } }, "mcp.assistants: list at least one assistant id or graph name (to turn MCP off, set http.disable_mcp)"],
    [{ mcp: { assistants: ["agent", "agent"] } }, 'mcp.assistants.1: "agent" is listed twice'],
    [{ mcp: { assistants: [" "] } }, "mcp.assistants.0: must not be empty"],
    [{ mcp: { assistants: "agent" } }, "mcp.assistants:"],
    [{ mcp: { mode: "sessions" } }, 'mcp.mode: mode must be "stateless" or "session"'],
    [{ mcp: { assistant: ["agent"] } }, 'mcp: Unrecognized key: "assistant"'],
    [{ http: { disable_mcp: "yes" } }, "http.disable_mcp:"],
  ])("refuses %j with the path of the key", async (extra, message) => {
    const path = write(extra);
    const error = await loadLangGraphConfig(path).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidInputError);
    expect((error as Error).message).toContain(`${path}: ${message}`);
  });
});
