import { WireSerializationError } from "../errors.js";
import type { JsonValue } from "../model.js";

/**
 * How deeply nested (objects and arrays, the outermost one being level 1) a JSON value the API accepts may
 * be. Real agent payloads (messages, tool calls, state) stay within a few dozen levels; 512 leaves room for
 * any of them while keeping every recursive step after parsing (validation, this conversion, the
 * checkpointer's serializer, JSON.stringify) far from the stack's end, which deep input would otherwise
 * reach (a stack overflow, a 500).
 */
export const MAX_JSON_DEPTH = 512;

/**
 * The conversion's own bound (its recursion overflows the stack near 1,600 levels). Above the request
 * limit: the server nests request values a few levels deeper (run kwargs, state values, messages).
 */
const MAX_WIRE_DEPTH = 1000;

/**
 * Whether `value` nests objects/arrays deeper than `limit` levels. Iterative, so any depth the JSON
 * parser produced can be measured without touching the stack.
 */
export function jsonDepthExceeds(value: unknown, limit: number = MAX_JSON_DEPTH): boolean {
  const pending: [unknown, number][] = [[value, 1]];
  while (pending.length > 0) {
    const [current, depth] = pending.pop()!;
    if (current === null || typeof current !== "object") continue;
    if (depth > limit) return true;
    for (const member of Array.isArray(current) ? current : Object.values(current)) {
      if (member !== null && typeof member === "object") pending.push([member, depth + 1]);
    }
  }
  return false;
}

/**
 * Turns any value into the JSON the HTTP API emits, as a fresh tree that shares nothing with the input.
 *
 * - LangChain messages (anything with `toDict()`) become `{ ...data, type }`, as the official server emits them.
 * - Other objects with `toJSON()` (Dates among them) are replaced by what it returns.
 * - `undefined` members are dropped from objects and become null in arrays, as `JSON.stringify` does;
 *   non-finite numbers become null.
 * - BigInt, cycles, functions, symbols, Maps, Sets and binary buffers are refused with
 *   `WireSerializationError` (naming the path), never silently dropped; so is nesting deeper than
 *   1,000 levels (the recursion's safe bound; requests are held to `MAX_JSON_DEPTH` before this).
 *
 * Drivers use it for the defensive copies they store and return, so every backend hands out the same shape.
 */
export function toWireJson(value: unknown): JsonValue {
  const converted = convert(value, new Walk());
  if (converted === undefined) {
    throw new WireSerializationError(`cannot represent ${describe(value)} as JSON`, "$");
  }
  return converted;
}

/** `toWireJson` for values that must be objects (state values, metadata). */
export function toWireObject(value: unknown): { [key: string]: JsonValue } {
  const json = toWireJson(value);
  if (json === null || typeof json !== "object" || Array.isArray(json)) {
    throw new WireSerializationError(`expected an object, got ${describe(value)}`, "$");
  }
  return json;
}

/** Serializes to a JSON string with the same rules (what drivers write into a text/jsonb column). */
export function stringifyWire(value: unknown): string {
  return JSON.stringify(toWireJson(value));
}

/**
 * Where the conversion is: the objects above the current value (cycles, depth) and the keys leading to
 * it. The path is spelled out ("$.messages[3].content") only for an error: building it for every value
 * made a long state's conversion allocate a string per member.
 */
class Walk {
  readonly ancestors = new Set<object>();
  private readonly keys: (string | number)[] = [];

  enter(key: string | number): void {
    this.keys.push(key);
  }

  leave(): void {
    this.keys.pop();
  }

  path(): string {
    let path = "$";
    for (const key of this.keys) path += typeof key === "number" ? `[${key}]` : `.${key}`;
    return path;
  }
}

function convert(value: unknown, walk: Walk): JsonValue | undefined {
  switch (typeof value) {
    case "string":
    case "boolean":
      return value;
    case "number":
      return Number.isFinite(value) ? value : null;
    case "undefined":
      return undefined;
    case "bigint":
      throw new WireSerializationError("BigInt cannot be represented as JSON", walk.path());
    case "function":
    case "symbol":
      // JSON.stringify drops these silently; losing part of a state value is worse than refusing it.
      throw new WireSerializationError(`${typeof value} cannot be represented as JSON`, walk.path());
  }
  if (value === null) return null;
  const obj = value as object;
  const { ancestors } = walk;
  if (ancestors.has(obj)) {
    throw new WireSerializationError("cyclic structure cannot be represented as JSON", walk.path());
  }
  // `ancestors` is the chain of objects above this one: its size is the depth.
  if (ancestors.size >= MAX_WIRE_DEPTH) {
    const path = walk.path();
    throw new WireSerializationError(`nested deeper than ${MAX_WIRE_DEPTH} levels`, path.length > 60 ? `${path.slice(0, 60)}...` : path);
  }
  ancestors.add(obj);
  try {
    return convertObject(obj, walk);
  } finally {
    ancestors.delete(obj);
  }
}

function convertObject(obj: object, walk: Walk): JsonValue | undefined {
  const candidate = obj as { toDict?: unknown; toJSON?: unknown };
  if (typeof candidate.toDict === "function") {
    const { type, data } = (candidate.toDict as () => { type: string; data: Record<string, unknown> })();
    return convert({ ...data, type }, walk);
  }
  if (typeof candidate.toJSON === "function") {
    const replaced = (candidate.toJSON as (key: string) => unknown).call(obj, "");
    if (replaced === obj) return convertPlain(obj, walk);
    return convert(replaced, walk);
  }
  if (Array.isArray(obj)) {
    const out: JsonValue[] = new Array(obj.length);
    for (let index = 0; index < obj.length; index++) {
      // No finally: a throw abandons the whole walk, with the path taken where it threw.
      walk.enter(index);
      out[index] = convert(obj[index], walk) ?? null;
      walk.leave();
    }
    return out;
  }
  if (obj instanceof Map || obj instanceof Set || ArrayBuffer.isView(obj) || obj instanceof ArrayBuffer) {
    throw new WireSerializationError(`${obj.constructor.name} cannot be represented as JSON`, walk.path());
  }
  return convertPlain(obj, walk);
}

function convertPlain(obj: object, walk: Walk): JsonValue {
  const out: { [key: string]: JsonValue } = {};
  for (const key in obj) {
    if (!Object.prototype.hasOwnProperty.call(obj, key)) continue;
    walk.enter(key);
    const converted = convert((obj as Record<string, unknown>)[key], walk);
    walk.leave();
    if (converted !== undefined) out[key] = converted;
  }
  return out;
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (typeof value === "object") return value.constructor?.name ?? "object";
  return typeof value;
}
