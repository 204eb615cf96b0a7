import type { StoreVector } from "../repos/store.js";
import { textsAtPath } from "./text-at-path.js";

/**
 * Semantic store search (langgraph.json `store.index`): the rules every driver shares. Drivers store the
 * vectors these functions produce and rank by `cosineSimilarity`; which texts an item contributes, how a
 * vector is checked and normalized, and whether a database was indexed with the configured settings
 * are decided here, once.
 */

/** langgraph.json `store.index`, as the Python LangGraph server reads it. */
export interface StoreIndexSettings {
  /** `"./file.ts:export"` or `"provider:model"`. */
  embed: string;
  dims: number;
  /** JSON paths into an item's value (`textsAtPath` syntax); `["$"]`: the whole value. */
  fields: string[];
}

export const DEFAULT_INDEX_FIELDS = ["$"];

/**
 * What a database's vectors were made with. Two settings with the same identity give comparable vectors;
 * anything else (another model, other dims, other fields) needs a re-index. Canonical JSON text.
 */
export function storeIndexIdentity(settings: StoreIndexSettings): string {
  return JSON.stringify({ embed: settings.embed, dims: settings.dims, fields: [...settings.fields] });
}

/** The fields of one put: `false` (not indexed), the put's own paths, or the configured ones (`null`/absent). */
export function indexFieldsFor(putIndex: false | string[] | null | undefined, configured: string[]): string[] {
  if (putIndex === false) return [];
  return putIndex ?? configured;
}

/**
 * The texts to embed for an item: for each path, the texts LangGraph's in-memory store finds there
 * (`textsAtPath`)
 * (strings as they are, other values as JSON), named by the path, and `path.i` when a path (`[*]`) finds
 * several, as LangGraph's in-memory store names them. A path that finds nothing contributes nothing.
 */
export function textsToEmbed(value: Record<string, unknown>, fields: string[]): Array<{ field: string; text: string }> {
  const out: Array<{ field: string; text: string }> = [];
  for (const path of fields) {
    const texts = textsAtPath(value, path).filter((t) => t.length > 0);
    if (texts.length === 1) out.push({ field: path, text: texts[0]! });
    else texts.forEach((text, i) => out.push({ field: `${path}.${i}`, text }));
  }
  return out;
}

/**
 * A vector as stored: checked to be `dims` finite numbers, scaled to unit length so cosine similarity is
 * a dot product in every driver (SQL without extensions included). A zero vector stays zero (score 0).
 * Throws with `what` naming the vector's origin.
 */
export function unitVector(vector: unknown, dims: number, what: string): number[] {
  if (!Array.isArray(vector)) throw new TypeError(`${what} is not an array of numbers`);
  if (vector.length !== dims) throw new TypeError(`${what} has ${vector.length} dimensions; store.index.dims is ${dims}`);
  let norm = 0;
  for (const x of vector) {
    if (typeof x !== "number" || !Number.isFinite(x)) throw new TypeError(`${what} holds a value that is not a finite number`);
    norm += x * x;
  }
  norm = Math.sqrt(norm);
  return norm === 0 ? vector.map(() => 0) : vector.map((x: number) => x / norm);
}

/** Cosine similarity in [-1, 1]; 0 when either vector is zero. Drivers that compute it in SQL agree with this. */
export function cosineSimilarity(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}

/** An item's score for a query: the best of its fields (LangGraph's stores keep an item's best match). */
export function itemScore(query: ArrayLike<number>, vectors: StoreVector[]): number | undefined {
  let best: number | undefined;
  for (const v of vectors) {
    const s = cosineSimilarity(query, v.vector);
    if (best === undefined || s > best) best = s;
  }
  return best;
}

/** How a recorded identity compares with the configured one. */
export type IndexIdentityCheck =
  | { status: "same" }
  /** Nothing recorded and nothing stored: record the configured identity. */
  | { status: "new" }
  /** Recorded with other settings, or items stored while none was recorded: queries need a re-index. */
  | { status: "stale"; recorded: string | null };

export function checkIndexIdentity(recorded: string | null, configured: string, hasItems: boolean): IndexIdentityCheck {
  if (recorded === configured) return { status: "same" };
  if (recorded === null && !hasItems) return { status: "new" };
  return { status: "stale", recorded };
}
