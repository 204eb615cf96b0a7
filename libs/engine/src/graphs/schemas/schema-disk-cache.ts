import { randomUUID } from "node:crypto";
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { join } from "node:path";
import { contentHash } from "./content-hash.js";
import type { StaticGraphSchemas, StaticTarget } from "./static-schemas.js";

/** Bumped when the layout of a cache file changes. */
const FORMAT = 1;

/** The hash of each file one extraction read (content-hash.ts), by path; null: looked for, not there. */
export type SourceFileHashes = Record<string, string | null>;

interface CacheEntry {
  format: number;
  extractor: string;
  target: StaticTarget;
  files: SourceFileHashes;
  schemas: StaticGraphSchemas | null;
}

/**
 * The extractor's code, beside this module in the repository. In the published package only the worker
 * entry is there (the rest is bundled), and it imports its code from a chunk named by the hash of its
 * content, so hashing the entry still changes with the code.
 */
const EXTRACTOR_FILES = ["./static-schema-worker.mjs", "./static-schemas.ts", "./analysis-source.ts", "./subgraph-discovery.ts"];

/**
 * Source schemas kept across restarts: one JSON file per graph (module, export, project folder) in `dir`.
 * An entry holds the hash of every file the extraction's compiler program read (the graph module, what it
 * imports, type declarations of packages and of TypeScript's lib, package.json files, the tsconfig.json)
 * and the extractor's identity (TypeScript's and typescript-json-schema's versions, the extractor's own
 * code). It is used only while all of these still match: an edit of the graph or of anything it imports,
 * an upgraded package, a changed tsconfig.json all mean a new extraction. Not noticed: a new file that the
 * compiler would now resolve an import to instead of the one it read (a new `x.ts` beside the `x.d.ts`).
 * A folder inside node_modules is never written; a folder that cannot be written costs only the cache.
 */
export class SchemaDiskCache {
  private readonly usable: boolean;
  private extractor: Promise<string> | undefined;
  private failureReported = false;

  constructor(
    private readonly dir: string,
    private readonly onUnwritable?: (error: Error) => void,
  ) {
    this.usable = !dir.split(/[\\/]/).includes("node_modules");
  }

  /**
   * Each target's cached schemas (null: its source has none), or undefined where no entry is valid.
   * Files that several entries share (they come from one compiler program) are read and hashed once.
   */
  async readAll(targets: StaticTarget[]): Promise<(StaticGraphSchemas | null | undefined)[]> {
    if (!this.usable) return targets.map(() => undefined);
    const extractor = await this.extractorId().catch(() => undefined);
    const entries = await Promise.all(
      targets.map(async (target) => {
        const entry = await readEntry(this.entryPath(target));
        return entry?.format === FORMAT && entry.extractor === extractor && sameTarget(entry.target, target) ? entry : undefined;
      }),
    );
    const current = await hashFiles(new Set(entries.flatMap((entry) => (entry ? Object.keys(entry.files) : []))));
    return entries.map((entry) =>
      entry && Object.entries(entry.files).every(([file, hash]) => current.get(file) === hash) ? entry.schemas : undefined,
    );
  }

  /** Records the results of one extraction, with the hashes of the files its program read. */
  async write(results: { target: StaticTarget; schemas: StaticGraphSchemas | null }[], files: SourceFileHashes): Promise<void> {
    if (!this.usable || results.length === 0) return;
    try {
      await mkdir(this.dir, { recursive: true });
      const extractor = await this.extractorId();
      for (const { target, schemas } of results) {
        const entry: CacheEntry = { format: FORMAT, extractor, target, files, schemas };
        // Written aside, then renamed: another server sharing the folder never reads half a file.
        const path = this.entryPath(target);
        const temp = `${path}.${randomUUID()}.tmp`;
        await writeFile(temp, JSON.stringify(entry));
        await rename(temp, path);
      }
    } catch (error) {
      if (this.failureReported) return;
      this.failureReported = true;
      this.onUnwritable?.(error as Error);
    }
  }

  private entryPath(target: StaticTarget): string {
    const key = contentHash(JSON.stringify([target.sourceFile, target.exportName, target.projectDir]));
    return join(this.dir, `${key.slice(0, 32)}.json`);
  }

  private extractorId(): Promise<string> {
    return (this.extractor ??= extractorIdentity());
  }
}

async function readEntry(path: string): Promise<CacheEntry | undefined> {
  try {
    return JSON.parse(await readFile(path, "utf8")) as CacheEntry;
  } catch {
    // No entry yet, or one that cannot be read: the graph is extracted again.
    return undefined;
  }
}

/** Files read at once: a project's program reads hundreds, which must not all hold a descriptor together. */
const CONCURRENT_READS = 32;

/** The current hash of each file (null: not there), as TypeScript reads it: UTF-8, a byte order mark dropped. */
async function hashFiles(files: Set<string>): Promise<Map<string, string | null>> {
  const hashes = new Map<string, string | null>();
  const queue = [...files];
  const reader = async () => {
    for (let file = queue.pop(); file !== undefined; file = queue.pop()) {
      const bytes = await readFile(file).catch(() => undefined);
      hashes.set(file, bytes === undefined ? null : contentHash(new TextDecoder().decode(bytes)));
    }
  };
  await Promise.all(Array.from({ length: CONCURRENT_READS }, reader));
  return hashes;
}

async function extractorIdentity(): Promise<string> {
  const require = createRequire(import.meta.url);
  const parts = [`format ${FORMAT}`];
  for (const name of ["typescript", "typescript-json-schema"]) {
    const { version } = JSON.parse(await readFile(require.resolve(`${name}/package.json`), "utf8")) as { version: string };
    parts.push(`${name}@${version}`);
  }
  for (const file of EXTRACTOR_FILES) {
    const text = await readFile(new URL(file, import.meta.url), "utf8").catch(() => undefined);
    if (text !== undefined) parts.push(`${file} ${contentHash(text)}`);
  }
  return contentHash(parts.join("\n"));
}

function sameTarget(a: StaticTarget, b: StaticTarget): boolean {
  return a.sourceFile === b.sourceFile && a.exportName === b.exportName && a.projectDir === b.projectDir;
}
