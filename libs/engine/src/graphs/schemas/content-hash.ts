import { createHash } from "node:crypto";

/**
 * The hash a cached extraction records for each file it read, computed on the text the compiler got
 * (the extraction worker) and on the text read back later (the cache's check) alike.
 */
export function contentHash(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}
