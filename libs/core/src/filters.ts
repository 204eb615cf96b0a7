/**
 * Matching rules for metadata searches and auth filters, shared by every driver so they agree exactly.
 * SQL drivers either translate these rules (Postgres `@>`) or register these functions with the database
 * (SQLite `db.function`), so filtering happens inside the query and LIMIT/OFFSET stay correct.
 */

/**
 * JSONB containment (`haystack @> needle`, as Postgres defines it): objects contain every key of the
 * needle with a contained value; arrays contain every needle element somewhere; scalars are equal.
 * A scalar needle is also contained in an array that has it as an element, as in Postgres.
 */
export function jsonContains(haystack: unknown, needle: unknown): boolean {
  if (Array.isArray(haystack)) {
    if (Array.isArray(needle)) {
      return needle.every((n) => haystack.some((h) => jsonContains(h, n)));
    }
    if (isPlainObject(needle)) return false;
    return haystack.some((h) => !Array.isArray(h) && !isPlainObject(h) && h === needle);
  }
  if (isPlainObject(haystack)) {
    if (!isPlainObject(needle)) return false;
    return Object.entries(needle).every(
      ([key, value]) => Object.prototype.hasOwnProperty.call(haystack, key) && jsonContains(haystack[key], value),
    );
  }
  return haystack === needle;
}

/**
 * A filter an auth handler returns to scope what a user sees, per `@langchain/langgraph-sdk/auth`:
 * `{ owner: "alice" }` or `{ owner: { $eq: "alice" } }` (equal), `{ tags: { $contains: "x" } }`
 * (the metadata value is an array holding the element). Keys combine with AND.
 */
export type AuthFilter = Record<string, unknown>;

export function matchesAuthFilter(metadata: Record<string, unknown> | null | undefined, filter: AuthFilter | undefined): boolean {
  if (!filter) return true;
  const meta = metadata ?? {};
  return Object.entries(filter).every(([key, condition]) => {
    const actual = meta[key];
    if (isPlainObject(condition) && ("$eq" in condition || "$contains" in condition)) {
      if ("$eq" in condition && !jsonEqual(actual, condition.$eq)) return false;
      if ("$contains" in condition) {
        const wanted = condition.$contains;
        const list = Array.isArray(wanted) ? wanted : [wanted];
        if (!Array.isArray(actual) || !list.every((w) => actual.some((a) => jsonEqual(a, w)))) return false;
      }
      return true;
    }
    return jsonEqual(actual, condition);
  });
}

/**
 * What an auth filter on the store is matched against, as the official server defines it: the item's
 * value fields, then its `namespace` (array of labels) and `key`. A handler returning
 * `{ namespace: { $contains: user } }` scopes a user to the namespaces that name them.
 */
export function storeAuthSubject(namespace: string[], key?: string, value?: Record<string, unknown> | null): Record<string, unknown> {
  return { ...(value ?? {}), namespace, ...(key === undefined ? {} : { key }) };
}

/** Deep equality of JSON values (key order ignored). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    return Array.isArray(b) && a.length === b.length && a.every((v, i) => jsonEqual(v, b[i]));
  }
  if (isPlainObject(a) && isPlainObject(b)) {
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length && ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && jsonEqual(a[k], b[k]));
  }
  return false;
}

/**
 * Store search filter (`BaseStore.search({ filter })`): each key names a field of the item's value;
 * a plain value means equality, an object may use `$eq $ne $gt $gte $lt $lte`.
 */
export function matchesStoreFilter(value: Record<string, unknown>, filter: Record<string, unknown> | undefined): boolean {
  if (!filter) return true;
  return Object.entries(filter).every(([key, condition]) => {
    const actual = value[key];
    if (isPlainObject(condition) && Object.keys(condition).some((k) => k.startsWith("$"))) {
      return Object.entries(condition).every(([op, operand]) => compareOp(op, actual, operand));
    }
    return jsonEqual(actual, condition);
  });
}

function compareOp(op: string, actual: unknown, operand: unknown): boolean {
  switch (op) {
    case "$eq":
      return jsonEqual(actual, operand);
    case "$ne":
      return !jsonEqual(actual, operand);
    case "$gt":
      return comparable(actual, operand) && (actual as number) > (operand as number);
    case "$gte":
      return comparable(actual, operand) && (actual as number) >= (operand as number);
    case "$lt":
      return comparable(actual, operand) && (actual as number) < (operand as number);
    case "$lte":
      return comparable(actual, operand) && (actual as number) <= (operand as number);
    default:
      return false;
  }
}

function comparable(a: unknown, b: unknown): boolean {
  return (typeof a === "number" && typeof b === "number") || (typeof a === "string" && typeof b === "string");
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== "object") return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
