import { randomUUID } from "node:crypto";
import { afterEach } from "vitest";
import type { NewRun, Run, Storage, Thread } from "@agent-server/core";

/** How the suite obtains drivers; see `describeStorageConformance`. */
export interface ConformanceFactory {
  /** A fresh, empty driver (new file / new schema / new memory). */
  create(): Promise<Storage>;
  /** Optional: another live driver over the same data as `storage` (a second connection/pool), for cross-connection races. */
  sibling?(storage: Storage): Promise<Storage>;
  /** Optional: closes `storage` and opens a new driver over the same data (persistence across restart). */
  reopen?(storage: Storage): Promise<Storage>;
}

/**
 * Opens drivers for one test and closes every one of them after it (newest first), whatever the outcome.
 * `hasSibling` / `hasReopen` say which optional factory hooks exist, so suites register those tests only then.
 */
export interface Harness {
  readonly hasSibling: boolean;
  readonly hasReopen: boolean;
  open(): Promise<Storage>;
  sibling(storage: Storage): Promise<Storage>;
  reopen(storage: Storage): Promise<Storage>;
  /** Closes a driver now (and not again after the test). */
  close(storage: Storage): Promise<void>;
}

/** Must be called inside a `describe` block: registers the afterEach that closes drivers. */
export function createHarness(factory: ConformanceFactory): Harness {
  const opened: Storage[] = [];
  afterEach(async () => {
    const toClose = opened.splice(0).reverse();
    const errors: unknown[] = [];
    for (const storage of toClose) {
      try {
        await storage.close();
      } catch (error) {
        errors.push(error);
      }
    }
    if (errors.length > 0) throw errors[0];
  });
  const track = (storage: Storage) => {
    opened.push(storage);
    return storage;
  };
  return {
    hasSibling: typeof factory.sibling === "function",
    hasReopen: typeof factory.reopen === "function",
    async open() {
      return track(await factory.create());
    },
    async sibling(storage) {
      if (!factory.sibling) throw new Error("factory has no sibling()");
      return track(await factory.sibling(storage));
    },
    async reopen(storage) {
      if (!factory.reopen) throw new Error("factory has no reopen()");
      // reopen() closes `storage` itself: stop tracking it so it is not closed twice.
      const index = opened.indexOf(storage);
      if (index >= 0) opened.splice(index, 1);
      return track(await factory.reopen(storage));
    },
    async close(storage) {
      const index = opened.indexOf(storage);
      if (index >= 0) opened.splice(index, 1);
      await storage.close();
    },
  };
}

/** A fresh UUID: every id the suite uses is one, so drivers may use uuid columns. */
export function uid(): string {
  return randomUUID();
}

export async function newThread(storage: Storage, metadata: Record<string, unknown> = {}): Promise<Thread> {
  return storage.threads.create({ thread_id: uid(), metadata });
}

/** An assistant, a thread and a run (pending unless `overrides` says otherwise). */
export async function newRun(storage: Storage, overrides: Partial<NewRun> = {}): Promise<Run> {
  const thread_id = overrides.thread_id ?? (await newThread(storage)).thread_id;
  const assistant_id = overrides.assistant_id ?? (await storage.assistants.create({ assistant_id: uid(), graph_id: "agent" })).assistant_id;
  return storage.runs.create({ run_id: uid(), ...overrides, thread_id, assistant_id });
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The exact key set of a `Run`: reads must never carry results, internals or lease bookkeeping. */
export const RUN_KEYS = [
  "assistant_id",
  "cancel_reason",
  "created_at",
  "kwargs",
  "metadata",
  "multitask_strategy",
  "run_id",
  "status",
  "thread_id",
  "updated_at",
].sort();

export const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/**
 * Awkward JSON: nesting, unicode (emoji, NUL, RTL override), a 1 MB string, a Date, 0.1, 1e21, empties.
 * What every JSON column must return is `toWireJson(awkwardValue())`.
 */
export function awkwardValue(): Record<string, unknown> {
  return {
    nested: { a: [1, { b: [null, true, "x", { c: { d: { e: [[[]]] } } }] }] },
    emoji: "😀👍🏽🏳️‍🌈",
    nul: "a\u0000b",
    rtl: "مرحبا \u202Eabc\u202C שלום",
    big: "x".repeat(1024 * 1024),
    date: new Date("2024-02-29T12:34:56.789Z"),
    tenth: 0.1,
    huge: 1e21,
    negative: -12.5,
    emptyObject: {},
    emptyArray: [],
    quote: "\"'\\`\n\t",
  };
}
