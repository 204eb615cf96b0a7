import type pg from "pg";

/**
 * How semantic store searches score the `real[]` vectors (unit vectors, so the dot product is the cosine):
 * - `pgvector`: cast to `vector` and pgvector's cosine distance `<=>`, in C. Used when the extension is
 *   installed in the database, or can be (`pg_available_extensions`); untested here (no pgvector on the
 *   machines this was built on). No ANN index: the prefix, value and auth filters apply before ranking.
 * - `exact`: the dot product in SQL (`unnest` of both arrays), no extension needed.
 * Both read every vector of the items the other conditions leave: O(items under the prefix × dims).
 */
export type PostgresVectorSearch = "pgvector" | "exact";

/** The score of `store_vectors v` against the query parameter `param` (a real[]), in [-1, 1]. */
export function vectorScoreSql(method: PostgresVectorSearch, param: string): string {
  return method === "pgvector"
    ? `COALESCE(1 - (v.embedding::vector <=> ${param}::real[]::vector), 0)`
    : `(SELECT COALESCE(sum(a * b), 0) FROM unnest(v.embedding, ${param}::real[]) AS t(a, b))`;
}

/**
 * pgvector when it is installed, or available and this role may create it; else the exact scan. A
 * failure to create it (privileges) is not an error: the exact scan answers the same ranking.
 */
export async function detectVectorSearch(pool: pg.Pool): Promise<PostgresVectorSearch> {
  try {
    const { rows } = await pool.query<{ installed: boolean }>(
      "SELECT installed_version IS NOT NULL AS installed FROM pg_available_extensions WHERE name = 'vector'",
    );
    if (rows.length === 0) return "exact";
    if (!rows[0]!.installed) await pool.query("CREATE EXTENSION IF NOT EXISTS vector");
    return "pgvector";
  } catch {
    return "exact";
  }
}
