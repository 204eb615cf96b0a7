import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The ES modules a process loaded, as its module hooks saw them (module-log/). */
export interface ModuleLog {
  /** For the process's environment: preloads the recorder. */
  env: Record<string, string>;
  /** Every module URL loaded so far, in order (the query, such as tsx's namespace, kept). */
  loaded(): string[];
  /** Removes the log (once the process is gone). */
  dispose(): void;
}

/**
 * Records which ES modules a child process loads (and so when a package is loaded at all: at start or
 * on a first request), through Node's module hooks preloaded with NODE_OPTIONS. CommonJS files a
 * CommonJS package requires are not seen; the package's entry, imported from ES modules, is.
 */
export function moduleLog(): ModuleLog {
  const file = join(mkdtempSync(join(tmpdir(), "agent-server-modules-")), "loaded.txt");
  const register = fileURLToPath(new URL("./module-log/register.mjs", import.meta.url));
  const inherited = process.env.NODE_OPTIONS ? `${process.env.NODE_OPTIONS} ` : "";
  return {
    env: { NODE_OPTIONS: `${inherited}--import ${register}`, AGENT_SERVER_MODULE_LOG: file },
    loaded: () => (existsSync(file) ? readFileSync(file, "utf8").split("\n").filter(Boolean) : []),
    dispose: () => rmSync(dirname(file), { recursive: true, force: true }),
  };
}
