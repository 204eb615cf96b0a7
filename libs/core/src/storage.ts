import type { BaseCheckpointSaver, BaseStore } from "@langchain/langgraph-checkpoint";
import type { AssistantRepo } from "./repos/assistants.js";
import type { CronRepo } from "./repos/crons.js";
import type { DeliveryRepo } from "./repos/deliveries.js";
import type { EventRepo } from "./repos/events.js";
import type { PushConfigRepo } from "./repos/push-configs.js";
import type { RunRepo } from "./repos/runs.js";
import type { SignalBus } from "./signals.js";
import type { StoreRepo } from "./repos/store.js";
import type { ThreadRepo } from "./repos/threads.js";

/** What `POST /internal/truncate` may reset (dev mode only). */
export interface TruncateFlags {
  runs?: boolean;
  threads?: boolean;
  assistants?: boolean;
  store?: boolean;
  checkpointer?: boolean;
}

/**
 * A storage driver: every repository over one backend, plus the LangGraph checkpointer and store that
 * graphs run with, so graph state and the HTTP API read and write the same data.
 */
export interface Storage {
  /** "memory", "sqlite", "postgres", or a custom driver's name. */
  readonly kind: string;
  readonly assistants: AssistantRepo;
  readonly threads: ThreadRepo;
  readonly runs: RunRepo;
  readonly store: StoreRepo;
  readonly crons: CronRepo;
  readonly deliveries: DeliveryRepo;
  readonly events: EventRepo;
  /** A2A push notification configs; optional, like the result methods (no push without it). */
  readonly pushConfigs?: PushConfigRepo;
  /**
   * Live signals between the processes sharing this storage (stream events, run ends, cancels, wake-ups).
   * Optional: without it the engine signals within its own process and other processes poll.
   */
  readonly signals?: SignalBus;
  /** The backend's LangGraph checkpointer (MemorySaver, SqliteSaver, PostgresSaver). */
  readonly checkpointer: BaseCheckpointSaver;
  /** A LangGraph `BaseStore` over `store` (see `RepoBackedStore`). */
  readonly langgraphStore: BaseStore;
  truncate(flags: TruncateFlags): Promise<void>;
  /** Releases connections and file handles. The driver is unusable afterwards. */
  close(): Promise<void>;
}

/** What the server gives a custom driver module's function export (`--storage ./driver.ts:export`). */
export interface StorageOpenOptions {
  /** Absolute folder of langgraph.json. */
  projectDir: string;
  /** Absolute `--data-dir` (default `<projectDir>/.agent-server`); it may not exist yet. */
  dataDir: string;
}

/** A custom driver module may export a `Storage`, or this: a function (sync or async) returning one. */
export type StorageFactory = (options: StorageOpenOptions) => Storage | Promise<Storage>;
