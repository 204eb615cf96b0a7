import { stat } from "node:fs/promises";
import { isAbsolute, resolve } from "node:path";
import type { UserHttpApp } from "@agent-server/agent-protocol";
import { importProjectFile } from "../project-module.js";

/**
 * Loads langgraph.json's `http.app` ("./src/app.ts:app", export "default" when omitted), as the official
 * server does: a relative or absolute path is resolved against the project folder, anything else is
 * imported as a package. TypeScript loads through tsx like the graphs.
 */
export async function loadHttpApp(spec: string, cwd: string): Promise<UserHttpApp> {
  const [file, exportName = "default"] = spec.split(":", 2);
  let module: Record<string, unknown>;
  if (file.startsWith(".") || isAbsolute(file)) {
    const path = resolve(cwd, file);
    await stat(path).catch(() => {
      throw new Error(`http.app: file not found: ${path}`);
    });
    module = await importProjectFile(path);
  } else {
    module = (await import(file)) as Record<string, unknown>;
  }
  const app = module[exportName];
  if (typeof app === "function") return app as UserHttpApp;
  if (app && typeof app === "object" && typeof (app as { fetch?: unknown }).fetch === "function") return app as UserHttpApp;
  throw new Error(`http.app: export "${exportName}" of ${file} is not a Hono app or a fetch handler`);
}
