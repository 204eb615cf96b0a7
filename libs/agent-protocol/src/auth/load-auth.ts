import { stat } from "node:fs/promises";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { readAuthHandlers } from "./auth-instance.js";

/**
 * Loads langgraph.json's `auth.path` ("./src/auth.ts:auth"; no export name means `default`) relative to
 * the project directory, as the official server does. TypeScript files load through tsx, like graphs
 * (engine's load-graph.ts), so a project needs no build step. The export must be an `Auth` instance of
 * `@langchain/langgraph-sdk/auth`; its handlers are checked here so a broken setup fails at start-up.
 */
export async function loadAuth(spec: string, cwd: string): Promise<unknown> {
  const [file, exportName = "default"] = spec.split(":", 2);
  if (!file) throw new Error(`auth.path "${spec}": no file given`);
  const sourceFile = resolve(cwd, file);
  try {
    await stat(sourceFile);
  } catch {
    throw new Error(`auth.path "${spec}": file not found: ${sourceFile}`);
  }
  const module = (await importModule(sourceFile)) as Record<string, unknown>;
  const exported = await module[exportName];
  if (exported == null) throw new Error(`auth.path "${spec}": ${sourceFile} has no export "${exportName}"`);
  readAuthHandlers(exported, `auth.path "${spec}"`);
  return exported;
}

async function importModule(file: string): Promise<unknown> {
  if (/\.(m|c)?tsx?$/.test(file)) {
    const { tsImport } = await import("tsx/esm/api");
    return tsImport(pathToFileURL(file).href, import.meta.url);
  }
  return import(pathToFileURL(file).href);
}
