import { Worker } from "node:worker_threads";
import { SchemaDiskCache, type SourceFileHashes } from "./schema-disk-cache.js";
import type { StaticGraphSchemas, StaticTarget } from "./static-schemas.js";

export interface StaticSchemaOptions {
  /** How long one extraction may take before its worker is stopped and its graphs get null schemas. */
  timeoutMs: number;
  /** Heap limit of the worker thread: a project too big to analyse fails there, not in the server. */
  maxHeapMb: number;
  /** After a failed extraction (timeout, crash), how long its graphs answer null before the next try. */
  retryAfterMs: number;
  /** Where extracted schemas are kept across restarts (schema-disk-cache.ts); absent: in this process only. */
  cacheDir?: string;
  /** Told which graphs one extraction analysed and how long it took, once the results are in `cacheDir`. */
  onExtracted?: (graphIds: string[], durationMs: number) => void;
  /** Told which graphs' schemas came from `cacheDir`, still valid: no extraction for them. */
  onCacheHit?: (graphIds: string[]) => void;
  /** Told why a graph's source could not be analysed (its schemas are then null). */
  onFailure?: (graphIds: string[], error: Error) => void;
  /** Told, once, why `cacheDir` cannot be written (every start then extracts again). */
  onCacheUnwritable?: (error: Error) => void;
}

export const DEFAULT_STATIC_SCHEMA_OPTIONS: StaticSchemaOptions = { timeoutMs: 30_000, maxHeapMb: 2048, retryAfterMs: 60_000 };

const GATHER_MS = 25;

interface Waiting {
  graphId: string;
  target: StaticTarget;
  resolve: (schemas: StaticGraphSchemas | null) => void;
}

/** What the worker posts back: a result per target, and the files its compiler program read. */
interface WorkerReply {
  results: (StaticGraphSchemas | null)[];
  files: SourceFileHashes;
}

/**
 * Schemas from graphs' TypeScript source, once per graph, in a worker thread so the compiler never
 * blocks the server. `prefetch` starts them in the background (the server does at start); `get` asks
 * for one graph, starting it if nothing did. A graph's schemas come from `cacheDir` while its entry is
 * valid, else from an extraction, whose results are written there. One extraction runs at a time;
 * graphs asked for meanwhile are analysed together in the next one (one compiler program costs about
 * as much as one graph). A source without usable types is remembered as null; after a failure
 * (timeout, crash, perhaps only a busy machine) the graphs answer null for `retryAfterMs`, then are
 * tried again.
 */
export class StaticSchemaCache {
  private readonly results = new Map<string, Promise<StaticGraphSchemas | null>>();
  private readonly disk: SchemaDiskCache | undefined;
  private waiting: Waiting[] = [];
  private running = false;
  private stopped = false;
  /** Ends the extraction in progress (its worker is terminated). */
  private cancel: (() => void) | undefined;

  constructor(private readonly options: StaticSchemaOptions = DEFAULT_STATIC_SCHEMA_OPTIONS) {
    this.disk = options.cacheDir !== undefined ? new SchemaDiskCache(options.cacheDir, options.onCacheUnwritable) : undefined;
  }

  /** Starts, in the background, the schemas of the graphs not asked for yet: all in one extraction. */
  prefetch(targets: { graphId: string; target: StaticTarget }[]): void {
    if (this.stopped) return;
    const fresh: Waiting[] = [];
    for (const { graphId, target } of targets) {
      if (this.results.has(graphId) || fresh.some((w) => w.graphId === graphId)) continue;
      this.results.set(graphId, new Promise((resolve) => fresh.push({ graphId, target, resolve })));
    }
    if (fresh.length > 0) void this.lookUp(fresh);
  }

  get(graphId: string, target: StaticTarget): Promise<StaticGraphSchemas | null> {
    if (this.stopped) return Promise.resolve(null);
    this.prefetch([{ graphId, target }]);
    return this.results.get(graphId)!;
  }

  /** Stops the worker of a running extraction (a shutdown need not wait for it); what waits gets null. */
  stop(): void {
    this.stopped = true;
    this.cancel?.();
    this.waiting.splice(0).forEach((w) => w.resolve(null));
  }

  /** Answers the graphs whose cache entries are valid; queues the others, together, for extraction. */
  private async lookUp(lookups: Waiting[]): Promise<void> {
    const cached = this.disk ? await this.disk.readAll(lookups.map((w) => w.target)) : [];
    const hits: string[] = [];
    lookups.forEach((lookup, i) => {
      const schemas = cached[i];
      if (schemas === undefined) {
        if (this.stopped) lookup.resolve(null);
        else this.waiting.push(lookup);
      } else {
        hits.push(lookup.graphId);
        lookup.resolve(schemas);
      }
    });
    if (hits.length > 0) this.options.onCacheHit?.(hits);
    this.next();
  }

  private next(): void {
    if (this.stopped || this.running || this.waiting.length === 0) return;
    this.running = true;
    // A client usually asks for several graphs' schemas at once: gather them into one extraction.
    setTimeout(() => this.extractWaiting(), GATHER_MS);
  }

  private extractWaiting(): void {
    if (this.stopped) return;
    const batch = this.waiting;
    this.waiting = [];
    const started = performance.now();
    void this.extract(batch.map((w) => w.target))
      .then(
        async ({ results, files }) => {
          const durationMs = Math.round(performance.now() - started);
          batch.forEach((w, i) => w.resolve(results[i] ?? null));
          await this.disk?.write(
            batch.map((w, i) => ({ target: w.target, schemas: results[i] ?? null })),
            files,
          );
          this.options.onExtracted?.(
            batch.map((w) => w.graphId),
            durationMs,
          );
        },
        (error: Error) => {
          batch.forEach((w) => w.resolve(null));
          if (this.stopped) return;
          this.options.onFailure?.(
            batch.map((w) => w.graphId),
            error,
          );
          const retry = setTimeout(() => batch.forEach((w) => this.results.delete(w.graphId)), this.options.retryAfterMs);
          retry.unref();
        },
      )
      .finally(() => {
        this.running = false;
        this.next();
      });
  }

  private extract(targets: StaticTarget[]): Promise<WorkerReply> {
    return new Promise((resolve, reject) => {
      const worker = new Worker(new URL("./static-schema-worker.mjs", import.meta.url), {
        workerData: { targets },
        resourceLimits: { maxOldGenerationSizeMb: this.options.maxHeapMb },
        stdout: true,
        stderr: true,
      });
      // Compiler and generator warnings are not the server's output.
      worker.stdout.resume();
      worker.stderr.resume();
      let settled = false;
      const finish = (error: Error | undefined, reply?: WorkerReply) => {
        if (settled) return;
        settled = true;
        this.cancel = undefined;
        clearTimeout(timer);
        void worker.terminate();
        if (error) reject(error);
        else resolve(reply ?? { results: [], files: {} });
      };
      const timer = setTimeout(
        () => finish(new Error(`schema extraction timed out after ${this.options.timeoutMs} ms`)),
        this.options.timeoutMs,
      );
      this.cancel = () => finish(new Error("schema extraction stopped"));
      worker.once("message", (reply: WorkerReply) => finish(undefined, reply));
      worker.once("error", (error) => finish(error));
      worker.once("exit", (code) => finish(new Error(`schema extraction worker exited with code ${code}`)));
    });
  }
}
