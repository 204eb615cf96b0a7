import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A temp directory per test file; `cleanup` removes it with every database file inside. */
export function tempDir(prefix = "agent-sqlite-") {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  let n = 0;
  return {
    dir,
    file: (name?: string) => join(dir, name ?? `db-${n++}.sqlite`),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}
