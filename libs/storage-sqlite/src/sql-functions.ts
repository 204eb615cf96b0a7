import { jsonContains, matchesAuthFilter, matchesStoreFilter, NO_ENCRYPTION, storeAuthSubject, type FieldCipher } from "@agent-server/core";
import { parseJson, type Db } from "./db.js";
import { openStored, SEALED } from "./sealing.js";

const STORE_VALUE = SEALED.store_items.value.aad;

/**
 * Core's matching rules as SQL functions, so metadata / values / auth / store filters run inside the
 * query and LIMIT/OFFSET count only matching rows. They parse (and, sealed, open: the `aad` argument,
 * a literal in the query, names the column) the row's JSON per call: a search that uses them is
 * O(rows the other predicates leave), not index-assisted (see README). Opening here is what makes a
 * filter give the same rows with a key as without one.
 */
export function registerFunctions(db: Db, cipher: FieldCipher = NO_ENCRYPTION): void {
  const opts = { deterministic: true, varargs: false } as const;
  const open = (aad: unknown, text: unknown): unknown => openStored(cipher, String(aad), textOf(text));
  db.function("as_json_contains", opts, (haystack: unknown, needle: unknown, aad: unknown) =>
    jsonContains(open(aad, haystack), parseOrNull(needle)) ? 1 : 0,
  );
  db.function("as_auth_match", opts, (metadata: unknown, filter: unknown, aad: unknown) =>
    matchesAuthFilter(open(aad, metadata) as Record<string, unknown> | null, parseOrNull(filter) as Record<string, unknown>) ? 1 : 0,
  );
  db.function("as_store_auth_match", opts, (namespace: unknown, key: unknown, value: unknown, filter: unknown) => {
    const labels = typeof namespace === "string" && namespace !== "" ? namespace.split(".") : [];
    const subject = storeAuthSubject(
      labels,
      typeof key === "string" ? key : undefined,
      open(STORE_VALUE, value) as Record<string, unknown> | null,
    );
    return matchesAuthFilter(subject, parseOrNull(filter) as Record<string, unknown>) ? 1 : 0;
  });
  db.function("as_store_match", opts, (value: unknown, filter: unknown) =>
    matchesStoreFilter((open(STORE_VALUE, value) ?? {}) as Record<string, unknown>, parseOrNull(filter) as Record<string, unknown>) ? 1 : 0,
  );
}

function textOf(value: unknown): string | null {
  return typeof value === "string" || value == null ? (value ?? null) : Buffer.from(value as Uint8Array).toString("utf8");
}

function parseOrNull(text: unknown): unknown {
  return parseJson(textOf(text), null);
}
