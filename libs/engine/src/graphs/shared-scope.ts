import { existsSync, readFileSync, realpathSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

/**
 * Set on `globalThis` (true) by whoever registered tsx's loader for the whole process, so it is not
 * registered a second time: the repository's bin does, to run the server's own TypeScript sources.
 */
export const TYPESCRIPT_LOADER = Symbol.for("agent-server.typescript-loader");

/** The `@langchain/langgraph` package folder (real path) `from` resolves, or undefined when it finds none. */
function langGraphFolder(from: string): string | undefined {
  try {
    return dirname(realpathSync(createRequire(from).resolve("@langchain/langgraph/package.json")));
  } catch {
    return undefined;
  }
}

let serverLangGraph: string | undefined | null = null;

/**
 * Whether the graph module `file` can be imported in the server's own module scope and share its
 * LangGraph: it loads as an ES module (a CommonJS one would get LangGraph's CommonJS build, a second
 * instance anyway, and needs tsx's require hooks, which only a scope of its own registers) and its
 * `@langchain/langgraph` is the very package the server runs. A project with a copy of its own keeps a
 * scope of its own, as before.
 */
export function sharesServerLangGraph(file: string): boolean {
  if (!loadsAsModule(file)) return false;
  if (serverLangGraph === null) serverLangGraph = langGraphFolder(import.meta.url);
  return serverLangGraph !== undefined && langGraphFolder(file) === serverLangGraph;
}

/** `.mts`, or `.ts`/`.tsx` under a package.json with `"type": "module"` (what Node and tsx go by). */
function loadsAsModule(file: string): boolean {
  if (/\.mts$/.test(file)) return true;
  if (!/\.tsx?$/.test(file)) return false;
  for (let dir = dirname(file); ; dir = dirname(dir)) {
    const manifest = join(dir, "package.json");
    if (existsSync(manifest)) {
      try {
        return (JSON.parse(readFileSync(manifest, "utf8")) as { type?: unknown }).type === "module";
      } catch {
        return false;
      }
    }
    if (dirname(dir) === dir) return false;
  }
}

let claimed = false;

/**
 * The shared scope goes to the first project load of the process that asks for it, and only to it: a
 * second load (another server started in the same process, a test's second registry) imports the same
 * files again in a scope of its own, so its compiled graphs are objects of its own (the registry sets
 * each one's checkpointer and store), as every load had before.
 */
export function claimSharedScope(): boolean {
  if (claimed) return false;
  claimed = true;
  return true;
}

let loader: Promise<void> | undefined;

/**
 * Imports `url` in the server's own module scope. TypeScript needs tsx's loader, registered for the
 * process on first use (after the server's own modules loaded: they do not pay for its hooks) unless
 * something registered it already.
 */
export async function importShared(url: string): Promise<unknown> {
  await (loader ??= registerTypeScriptLoader());
  return import(url);
}

async function registerTypeScriptLoader(): Promise<void> {
  const holder = globalThis as Record<symbol, unknown>;
  if (holder[TYPESCRIPT_LOADER] === true) return;
  const { register } = await import("tsx/esm/api");
  register();
  holder[TYPESCRIPT_LOADER] = true;
}
