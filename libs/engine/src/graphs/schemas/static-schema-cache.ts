import { Worker } from "node:worker_threads";
import type { StaticGraphSchemas, StaticTarget } from "./static-schemas.js";

export interface StaticSchemaOptions {
  /** How long one extraction may take before its worker is stopped and its graphs get null schemas. */
  timeoutMs: number;
  /** Heap limit of the worker thread: a project too big to analyse fails there, not in the server. */
  maxHeapMb: number;
  /** After a failed extraction (timeout, crash), how long its graphs answer null before the next try. */
  retryAfterMs: number;
  /** Told which graphs one extraction analysed and how long it took. */
  onExtracted?: (graphIds: string[], durationMs: number) => void;
  /** Told why a graph's source could not be analysed (its schemas are then null). */
  onFailure?: (graphIds: string[], error: Error) => void;
}

export const DEFAULT_STATIC_SCHEMA_OPTIONS: StaticSchemaOptions = { timeoutMs: 30_000, maxHeapMb: 2048, retryAfterMs: 60_000 };

const GATHER_MS = 25;

interface Waiting {
  graphId: string;
  target: StaticTarget;
  resolve: (schemas: StaticGraphSchemas | null) => void;
}

/**
 * Schemas from graphs' TypeScript source, extracted lazily (on a graph's first request), once per graph,
 * in a worker thread so the compiler never blocks the server. One extraction runs at a time; graphs
 * asked for meanwhile are analysed together in the next one (one compiler program costs about as much
 * as one graph). A source without usable types is remembered as null; after a failure (timeout, crash,
 * perhaps only a busy machine) the graphs answer null for `retryAfterMs`, then are tried again.
 */
export class StaticSchemaCache {
  private readonly results = new Map<string, Promise<StaticGraphSchemas | null>>();
  private waiting: Waiting[] = [];
  private running = false;
  private stopped = false;
  /** Ends the extraction in progress (its worker is terminated). */
  private cancel: (() => void) | undefined;

  constructor(private readonly options: StaticSchemaOptions = DEFAULT_STATIC_SCHEMA_OPTIONS) {}

  get(graphId: string, target: StaticTarget): Promise<StaticGraphSchemas | null> {
    if (this.stopped) return Promise.resolve(null);
    let result = this.results.get(graphId);
    if (!result) {
      result = new Promise((resolve) => this.waiting.push({ graphId, target, resolve }));
      this.results.set(graphId, result);
      this.next();
    }
    return result;
  }

  /** Stops the worker of a running extraction (a shutdown need not wait for it); what waits gets null. */
  stop(): void {
    this.stopped = true;
    this.cancel?.();
    this.waiting.splice(0).forEach((w) => w.resolve(null));
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
        (results) => {
          this.options.onExtracted?.(
            batch.map((w) => w.graphId),
            Math.round(performance.now() - started),
          );
          batch.forEach((w, i) => w.resolve(results[i] ?? null));
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

  private extract(targets: StaticTarget[]): Promise<(StaticGraphSchemas | null)[]> {
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
      const finish = (error: Error | undefined, results?: (StaticGraphSchemas | null)[]) => {
        if (settled) return;
        settled = true;
        this.cancel = undefined;
        clearTimeout(timer);
        void worker.terminate();
        if (error) reject(error);
        else resolve(results ?? []);
      };
      const timer = setTimeout(
        () => finish(new Error(`schema extraction timed out after ${this.options.timeoutMs} ms`)),
        this.options.timeoutMs,
      );
      this.cancel = () => finish(new Error("schema extraction stopped"));
      worker.once("message", (results: (StaticGraphSchemas | null)[]) => finish(undefined, results));
      worker.once("error", (error) => finish(error));
      worker.once("exit", (code) => finish(new Error(`schema extraction worker exited with code ${code}`)));
    });
  }
}
