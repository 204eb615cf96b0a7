import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Auth } from "@langchain/langgraph-sdk/auth";
import { loadAuth } from "./load-auth.js";
import { isAuthInstance } from "./auth-instance.js";

const fixtures = join(import.meta.dirname, "fixtures");

describe("loadAuth (langgraph.json auth.path)", () => {
  it("imports a TypeScript module's named or default export relative to the project directory", async () => {
    const named = await loadAuth("./project-auth.ts:auth", fixtures);
    const byDefault = await loadAuth("project-auth.ts", fixtures);
    // Loaded through tsx, the module may see its own copy of the SDK: recognised by shape, not class.
    for (const loaded of [named, byDefault]) {
      expect(isAuthInstance(loaded)).toBe(true);
      expect(typeof (loaded as Auth)["~handlerCache"].authenticate).toBe("function");
      expect(Object.keys((loaded as Auth)["~handlerCache"].callbacks ?? {}).sort()).toEqual(["threads", "threads:create"]);
    }
  });

  it("fails at start-up, with the spec in the message, on a missing file or export, or a non-Auth export", async () => {
    await expect(loadAuth("./missing.ts:auth", fixtures)).rejects.toThrow(/auth.path "\.\/missing\.ts:auth": file not found/);
    await expect(loadAuth("./project-auth.ts:nope", fixtures)).rejects.toThrow(/has no export "nope"/);
    await expect(loadAuth("./project-auth.ts:notAuth", fixtures)).rejects.toThrow(/not an instance of Auth/);
    await expect(loadAuth("./project-auth.ts:rulesWithoutAuthenticate", fixtures)).rejects.toThrow(/need an authenticate handler/);
  });
});
