import { stat } from "node:fs/promises";
import { isAbsolute, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { InvalidInputError, type Storage, type StorageOpenOptions } from "@agent-server/core";

/** Where a custom driver module was named, for messages: the flag or the langgraph.json key. */
export type StorageModuleOrigin = "--storage" | "langgraph.json storage.path";

/** The members every driver has; the optional ones (`pushConfigs`, the result methods) are not checked. */
const REPOS = ["assistants", "threads", "runs", "store", "crons", "deliveries", "events"] as const;
const HANDLES = ["checkpointer", "langgraphStore"] as const;
const METHODS = ["truncate", "close"] as const;

/**
 * Opens a user's own `Storage` module: `"./driver.ts:export"` (export "default" when omitted), a path
 * resolved against `base` (the process cwd for the flag, the project folder for langgraph.json), or a
 * package name. The export is a `Storage`, or a function (sync or async) given `StorageOpenOptions` that
 * returns one.
 *
 * The module is imported in the server's own module graph (the CLI runs under tsx, so TypeScript loads
 * as is), not in a scope of its own as graphs are: the driver must throw the server's own
 * `@agent-server/core` error classes for the API to map them (NotFound 404, Conflict 409).
 *
 * The driver is returned as exported, never wrapped, so an optional method it lacks stays absent.
 * A missing file or export, or an export that is not a Storage, is a project error (exit 2).
 */
export async function openCustomStorage(
  spec: string,
  base: string,
  options: StorageOpenOptions,
  origin: StorageModuleOrigin,
): Promise<Storage> {
  const separator = spec.lastIndexOf(":");
  // "C:\\driver.ts" has no export part: a colon right after one letter is a drive.
  const hasExport = separator > 1;
  const file = hasExport ? spec.slice(0, separator) : spec;
  const exportName = (hasExport ? spec.slice(separator + 1) : "") || "default";
  const isPath = file.startsWith(".") || isAbsolute(file);
  const where = isPath ? resolve(base, file) : file;
  if (isPath) {
    await stat(where).catch(() => {
      throw new InvalidInputError(`${origin} ${spec}: file not found: ${where}`);
    });
  }
  let module: Record<string, unknown>;
  try {
    module = (await import(isPath ? pathToFileURL(where).href : file)) as Record<string, unknown>;
  } catch (error) {
    throw new InvalidInputError(`${origin} ${spec}: cannot load ${where}: ${firstLine(error)}`);
  }
  const exported = module[exportName];
  if (exported === undefined) {
    const names = Object.keys(module).sort().join(", ") || "none";
    throw new InvalidInputError(`${origin} ${spec}: ${where} has no export "${exportName}" (its exports: ${names})`);
  }
  if (typeof exported === "function" && /^class\b/.test(Function.prototype.toString.call(exported))) {
    throw new InvalidInputError(`${origin} ${spec}: export "${exportName}" is a class; export an instance, or a function returning one`);
  }
  const storage = typeof exported === "function" ? await callFactory(exported, options, `${origin} ${spec}`) : exported;
  const missing = missingMembers(storage);
  if (missing.length > 0) {
    const what = typeof exported === "function" ? `what export "${exportName}" returned` : `export "${exportName}"`;
    throw new InvalidInputError(
      `${origin} ${spec}: ${what} is not a Storage (missing ${missing.join(", ")}); export a Storage or a function returning one`,
    );
  }
  return storage as Storage;
}

/**
 * A factory that throws (a database down, a bad setting of its own) is a failure at run time (exit 1),
 * said with the module it came from.
 */
// A module export narrowed by `typeof === "function"` is a `Function`; it is called with the one options argument.
// eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
async function callFactory(factory: Function, options: StorageOpenOptions, label: string): Promise<unknown> {
  try {
    return await (factory as (o: StorageOpenOptions) => unknown)(options);
  } catch (error) {
    throw new Error(`${label}: opening the driver failed: ${firstLine(error)}`, { cause: error });
  }
}

function missingMembers(value: unknown): string[] {
  if (value === null || typeof value !== "object") return ["everything: not an object"];
  const candidate = value as Record<string, unknown>;
  const missing: string[] = [];
  if (typeof candidate.kind !== "string") missing.push("kind");
  for (const key of [...REPOS, ...HANDLES]) if (candidate[key] === null || typeof candidate[key] !== "object") missing.push(key);
  for (const key of METHODS) if (typeof candidate[key] !== "function") missing.push(`${key}()`);
  return missing;
}

function firstLine(error: unknown): string {
  return String((error as Error)?.message ?? error).split("\n")[0];
}
