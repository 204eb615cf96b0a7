import { pathToFileURL } from "node:url";

/**
 * Imports a file of the project (an absolute path): TypeScript through tsx, as graphs (engine's
 * load-graph.ts) and `auth.path` load, so a project needs no build step; JavaScript natively.
 */
export async function importProjectFile(path: string): Promise<Record<string, unknown>> {
  if (/\.(m|c)?tsx?$/.test(path)) {
    const { tsImport } = await import("tsx/esm/api");
    return (await tsImport(pathToFileURL(path).href, import.meta.url)) as Record<string, unknown>;
  }
  return (await import(pathToFileURL(path).href)) as Record<string, unknown>;
}
