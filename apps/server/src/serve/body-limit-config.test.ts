import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { loadLangGraphConfig } from "@agent-server/engine";
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { parseCli } from "../cli/index.js";
import { startServer } from "./start-server.js";

const PROJECT = join(fileURLToPath(new URL("../../test/support/fixture-project/", import.meta.url)), "langgraph.json");

/** A PUT /store/items body of `bytes` bytes or a little more. */
function storeItemOf(bytes: number): string {
  return JSON.stringify({ namespace: ["n"], key: "k", value: { text: "y".repeat(bytes) } });
}

async function put(url: string, body: string): Promise<{ status: number; json: unknown }> {
  const response = await fetch(`${url}/store/items`, { method: "PUT", headers: { "content-type": "application/json" }, body });
  const text = await response.text();
  return { status: response.status, json: text ? JSON.parse(text) : undefined };
}

describe("request body limit from langgraph.json http.max_body_size and --max-body-size", () => {
  it("refuses bodies over the configured size with 413, the flag winning over the file", async () => {
    const project = await loadLangGraphConfig(PROJECT);
    project.config.http = { ...project.config.http, max_body_size: 4096 };
    const args = (extra: string[]) => {
      const parsed = parseCli(["dev", "--port", "0", "--no-reload", "--storage", "memory", "--config", PROJECT, ...extra], {});
      if (parsed.kind !== "run") throw new Error("expected a run");
      return parsed.options;
    };
    const fromFile = await startServer(args([]), project, pino({ level: "silent" }));
    try {
      expect((await put(fromFile.url, storeItemOf(3000))).status).toBe(204);
      expect(await put(fromFile.url, storeItemOf(5000))).toEqual({
        status: 413,
        json: { detail: "Request body too large: the limit is 4096 bytes" },
      });
    } finally {
      await fromFile.stop(0);
    }
    const fromFlag = await startServer(args(["--max-body-size", "8192"]), project, pino({ level: "silent" }));
    try {
      expect((await put(fromFlag.url, storeItemOf(5000))).status).toBe(204);
      expect((await put(fromFlag.url, storeItemOf(9000))).status).toBe(413);
    } finally {
      await fromFlag.stop(0);
    }
  });

  it("validates the flag", () => {
    expect(() => parseCli(["dev", "--max-body-size", "0"], {})).toThrow(/--max-body-size must be an integer from 1/);
    expect(() => parseCli(["dev", "--max-body-size", "25MB"], {})).toThrow(/--max-body-size/);
  });
});
