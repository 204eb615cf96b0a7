import { isPlainObject, type AuthFilter } from "@agent-server/core";
import { encodeString, toDbJson, type Params } from "./db.js";

/**
 * SQL translations of core's matching rules (`libs/core/src/filters.ts`), so filtering happens inside the
 * query and LIMIT/OFFSET stay correct. Every operand goes through the same NUL encoding as stored values.
 */

/** `jsonContains(column, needle)`: jsonb `@>` has exactly these semantics. */
export function containsSql(params: Params, column: string, needle: unknown): string {
  return `${column} @> ${params.add(toDbJson(needle))}::jsonb`;
}

/**
 * `matchesAuthFilter(metadata, filter)`:
 * - plain value or `$eq` -> `metadata->'key' = value::jsonb` (jsonb equality is deep and ignores key order);
 * - `$contains` -> the value is an array and holds every element. Scalars use `@> jsonb_build_array(..)`;
 *   object/array elements need exact equality (not containment), so they use `EXISTS (jsonb_array_elements)`.
 */
export function authFilterSql(params: Params, column: string, filter: AuthFilter | undefined): string[] {
  if (!filter) return [];
  const out: string[] = [];
  for (const [key, condition] of Object.entries(filter)) {
    const field = `(${column} -> ${params.add(encodeString(key))}::text)`;
    if (isPlainObject(condition) && ("$eq" in condition || "$contains" in condition)) {
      if ("$eq" in condition) out.push(equalsSql(params, field, condition.$eq));
      if ("$contains" in condition) {
        const wanted = Array.isArray(condition.$contains) ? condition.$contains : [condition.$contains];
        out.push(`jsonb_typeof(${field}) = 'array'`);
        const scalars = wanted.filter((w) => !isPlainObject(w) && !Array.isArray(w));
        const composites = wanted.filter((w) => isPlainObject(w) || Array.isArray(w));
        if (scalars.length) {
          const items = scalars.map((w) => `${params.add(toDbJson(w))}::jsonb`).join(", ");
          out.push(`${field} @> jsonb_build_array(${items})`);
        }
        for (const w of composites) {
          out.push(`EXISTS (SELECT 1 FROM jsonb_array_elements(${field}) AS e(v) WHERE e.v = ${params.add(toDbJson(w))}::jsonb)`);
        }
      }
      continue;
    }
    out.push(equalsSql(params, field, condition));
  }
  return out;
}

function equalsSql(params: Params, field: string, value: unknown): string {
  // jsonEqual(undefined, undefined) is true: a filter on an undefined value matches a missing key.
  if (value === undefined) return `${field} IS NULL`;
  return `${field} = ${params.add(toDbJson(value))}::jsonb`;
}

/**
 * `matchesStoreFilter(value, filter)`: plain values are deep equality; `$eq $ne $gt $gte $lt $lte`
 * compare numbers with numbers and strings with strings (other combinations never match, as in core).
 * Strings compare by code point (`COLLATE "C"`), which equals JavaScript's order except between
 * astral characters and U+E000..U+FFFF (and for strings containing NUL, which are stored escaped).
 * An unknown operator matches nothing, as in core.
 */
export function storeFilterSql(params: Params, column: string, filter: Record<string, unknown> | undefined): string[] {
  if (!filter) return [];
  const out: string[] = [];
  for (const [key, condition] of Object.entries(filter)) {
    const keyParam = `${params.add(encodeString(key))}::text`;
    const field = `(${column} -> ${keyParam})`;
    if (isPlainObject(condition) && Object.keys(condition).some((k) => k.startsWith("$"))) {
      for (const [op, operand] of Object.entries(condition)) out.push(storeOpSql(params, column, keyParam, field, op, operand));
      continue;
    }
    out.push(equalsSql(params, field, condition));
  }
  return out;
}

const COMPARATORS: Record<string, string> = { $gt: ">", $gte: ">=", $lt: "<", $lte: "<=" };

function storeOpSql(params: Params, column: string, keyParam: string, field: string, op: string, operand: unknown): string {
  if (op === "$eq") return equalsSql(params, field, operand);
  if (op === "$ne") {
    if (operand === undefined) return `${field} IS NOT NULL`;
    return `${field} IS DISTINCT FROM ${params.add(toDbJson(operand))}::jsonb`;
  }
  const cmp = COMPARATORS[op];
  if (!cmp) return "FALSE";
  if (typeof operand === "number" && !Number.isNaN(operand)) {
    return `(jsonb_typeof(${field}) = 'number' AND (${column} ->> ${keyParam})::numeric ${cmp} ${params.add(String(operand))}::numeric)`;
  }
  if (typeof operand === "string") {
    return `(jsonb_typeof(${field}) = 'string' AND (${column} ->> ${keyParam}) COLLATE "C" ${cmp} ${params.add(encodeString(operand))}::text COLLATE "C")`;
  }
  return "FALSE";
}
