import { Worker } from "node:worker_threads";
import { WAL_AUTOCHECKPOINT_PAGES, type Db } from "./db.js";

/**
 * WAL pages the server's own connection lets the WAL reach before it checkpoints itself while the
 * background checkpointer runs: a backstop (64 MiB at 4 KiB pages) for when the worker falls behind or a
 * reader holds the WAL, never reached at the worker's pace (~1,500 pages between its ticks at 300 A2A
 * messages a second).
 */
export const BACKSTOP_AUTOCHECKPOINT_PAGES = 16_000;

export interface WalCheckpointerOptions {
  /** How often the worker checkpoints (ms). */
  intervalMs?: number;
  /** The worker starts this long after the database opens (ms): a short-lived open never pays for a thread. */
  startAfterMs?: number;
}

/** What the worker last reported: WAL frames and how many of them are in the database; or why it failed. */
export interface WalCheckpointReport {
  log?: number;
  checkpointed?: number;
  error?: string;
}

/**
 * Copies the WAL back into the database from a worker thread with its own connection, instead of inside
 * a commit of the server's connection. SQLite's automatic checkpoint runs in the commit that crosses
 * `wal_autocheckpoint` pages: one commit in ~100 A2A messages copied thousands of pages and synced the
 * files on the event loop (40–56 ms), ~0.7 ms a message spread over every request. The worker does the same
 * work on the other core; the server's connection keeps a far larger automatic checkpoint as a backstop
 * and returns to the usual one if the worker stops.
 *
 * For a database file only (an in-memory database has no WAL).
 */
export class WalCheckpointer {
  private worker: Worker | undefined;
  private readonly timer: NodeJS.Timeout;
  private closing: Promise<void> | undefined;
  /** The worker's last report (tests and diagnostics). */
  last: WalCheckpointReport | undefined;

  constructor(
    private readonly db: Db,
    private readonly path: string,
    private readonly options: WalCheckpointerOptions = {},
  ) {
    this.timer = setTimeout(() => this.start(), options.startAfterMs ?? 1_000);
    this.timer.unref();
  }

  /** Whether the worker is at work (started and not stopped). */
  get running(): boolean {
    return this.worker !== undefined;
  }

  private start(): void {
    if (this.closing) return;
    const worker = new Worker(new URL("./wal-checkpoint-worker.mjs", import.meta.url), {
      workerData: { path: this.path, intervalMs: this.options.intervalMs ?? 200 },
    });
    // The process may exit while it runs: closing the storage stops it, and SQLite needs no goodbye.
    worker.unref();
    this.worker = worker;
    worker.on("message", (report: WalCheckpointReport) => (this.last = report));
    worker.once("online", () => {
      if (this.worker === worker) this.db.pragma(`wal_autocheckpoint = ${BACKSTOP_AUTOCHECKPOINT_PAGES}`);
    });
    worker.once("error", (error) => (this.last = { error: error.message }));
    worker.once("exit", () => {
      if (this.worker !== worker) return;
      this.worker = undefined;
      // Stopped other than by close (it failed to start or to open the file): commits checkpoint again.
      if (this.db.open) this.db.pragma(`wal_autocheckpoint = ${WAL_AUTOCHECKPOINT_PAGES}`);
    });
  }

  /** Stops the worker and waits until its connection is closed (before the server's own closes). */
  close(): Promise<void> {
    this.closing ??= this.stop();
    return this.closing;
  }

  private async stop(): Promise<void> {
    clearTimeout(this.timer);
    const worker = this.worker;
    if (!worker) return;
    this.worker = undefined;
    const exited = new Promise<void>((resolve) => worker.once("exit", () => resolve()));
    worker.postMessage("close");
    const timeout = setTimeout(() => void worker.terminate(), 2_000);
    await exited;
    clearTimeout(timeout);
  }
}

/** Whether `path` names a database file (not `:memory:`, a temporary database or a URI). */
export function isDatabaseFile(path: string): boolean {
  return path !== ":memory:" && path !== "" && !path.startsWith("file:");
}
