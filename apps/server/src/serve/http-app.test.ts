import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loadHttpApp } from "./http-app.js";

describe("loadHttpApp", () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });

  it("loads a named or default export relative to the project, and names what is wrong", async () => {
    dir = mkdtempSync(join(tmpdir(), "agent-server-http-app-"));
    writeFileSync(
      join(dir, "app.mjs"),
      "export const app = { fetch: () => new Response('x') };\nexport default (req) => new Response('d');\nexport const nope = 42;\n",
    );
    expect(typeof ((await loadHttpApp("./app.mjs:app", dir)) as { fetch: unknown }).fetch).toBe("function");
    expect(typeof (await loadHttpApp("./app.mjs", dir))).toBe("function");
    await expect(loadHttpApp("./app.mjs:nope", dir)).rejects.toThrow('export "nope" of ./app.mjs is not a Hono app or a fetch handler');
    await expect(loadHttpApp("./missing.ts:app", dir)).rejects.toThrow(`http.app: file not found: ${join(dir, "missing.ts")}`);
  });
});
