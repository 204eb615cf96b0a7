/**
 * Reads superjson's `{ json, meta }` payloads (superjson 2.x, as `@langchain/langgraph-api` writes its
 * `.langgraph_api` files) without the superjson package: `meta.values` is a tree of type annotations
 * keyed by dotted paths into `json`; each annotated value is turned back into what it was.
 *
 * Format (superjson src/plainer.ts `walker`): a tree is `[annotation]` or `[annotation, { path: tree }]`,
 * and the root may be a plain `{ path: tree }` record; a path is keys joined by "." with "." and "\" (and
 * a leading "$") escaped by "\". Children are restored before their parent, so paths always run through
 * plain arrays and objects. Annotations: "undefined", "bigint", "Date", "regexp", "set", "map" (entries
 * array), "number" (NaN/Infinity), "Error", ["custom", name] (langgraph-api registers "Uint8Array" as
 * base64), ["typed-array", name], ["class", name], ["symbol", name]. Referential-equality annotations
 * need no work: without `dedupe` every copy is present in `json`.
 */

type Annotation = string | [string, string];
type Tree = [Annotation] | [Annotation, Record<string, Tree>];

export interface SuperJsonPayload {
  json: unknown;
  meta?: { values?: Tree | Record<string, Tree>; v?: number; referentialEqualities?: unknown };
}

export function isSuperJsonPayload(value: unknown): value is SuperJsonPayload {
  return typeof value === "object" && value !== null && !Array.isArray(value) && "json" in value;
}

export function fromSuperJson(payload: SuperJsonPayload): unknown {
  let root = payload.json;
  const apply = (annotation: Annotation, path: string[]) => {
    if (path.length === 0) {
      root = untransform(root, annotation);
      return;
    }
    let parent: unknown = root;
    for (const key of path.slice(0, -1)) parent = child(parent, key);
    const last = path[path.length - 1];
    guard(last);
    if (typeof parent !== "object" || parent === null) throw new Error(`superjson path ${path.join(".")} does not exist`);
    const container = parent as Record<string, unknown>;
    container[last] = untransform(container[last], annotation);
  };
  const values = payload.meta?.values;
  if (values !== undefined) traverse(values, [], apply);
  return root;
}

function traverse(tree: Tree | Record<string, Tree>, origin: string[], apply: (annotation: Annotation, path: string[]) => void): void {
  if (!Array.isArray(tree)) {
    for (const [key, subtree] of Object.entries(tree)) traverse(subtree, [...origin, ...parsePath(key)], apply);
    return;
  }
  const [annotation, children] = tree;
  if (children) {
    for (const [key, subtree] of Object.entries(children)) traverse(subtree, [...origin, ...parsePath(key)], apply);
  }
  apply(annotation, origin);
}

/** Splits on unescaped dots; "\x" stands for x. */
export function parsePath(path: string): string[] {
  const segments: string[] = [];
  let segment = "";
  for (let i = 0; i < path.length; i++) {
    const char = path[i];
    if (char === "\\" && i + 1 < path.length) {
      segment += path[i + 1];
      i++;
    } else if (char === ".") {
      segments.push(segment);
      segment = "";
    } else {
      segment += char;
    }
  }
  segments.push(segment);
  return segments;
}

function child(parent: unknown, key: string): unknown {
  guard(key);
  if (typeof parent !== "object" || parent === null) throw new Error(`superjson path segment ${key} does not exist`);
  return (parent as Record<string, unknown>)[key];
}

function guard(key: string): void {
  if (key === "__proto__" || key === "constructor" || key === "prototype") throw new Error(`refusing superjson path segment ${key}`);
}

const TYPED_ARRAYS: Record<string, new (values: number[]) => unknown> = {
  Int8Array, Uint8Array, Uint8ClampedArray, Int16Array, Uint16Array, Int32Array, Uint32Array, Float32Array, Float64Array,
};

function untransform(value: unknown, annotation: Annotation): unknown {
  if (Array.isArray(annotation)) {
    const [kind, name] = annotation;
    if (kind === "custom" && name === "Uint8Array" && typeof value === "string") return new Uint8Array(Buffer.from(value, "base64"));
    if (kind === "typed-array" && Array.isArray(value) && TYPED_ARRAYS[name]) return new TYPED_ARRAYS[name](value as number[]);
    if (kind === "symbol") return Symbol.for(name);
    return value; // "class" and other custom types: the plain JSON is the best we have
  }
  switch (annotation) {
    case "undefined":
      return undefined;
    case "bigint":
      return BigInt(value as string);
    case "Date":
      return new Date(value as string);
    case "number":
      return Number(value);
    case "regexp": {
      const text = String(value);
      return new RegExp(text.slice(1, text.lastIndexOf("/")), text.slice(text.lastIndexOf("/") + 1));
    }
    case "set":
      return new Set(value as unknown[]);
    case "map":
      return new Map(value as [unknown, unknown][]);
    case "Error": {
      const { message, ...rest } = (value ?? {}) as { message?: string };
      return Object.assign(new Error(message), rest);
    }
    default:
      return value;
  }
}
