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
import type { FieldCipher } from "./encryption/field-cipher.js";

/**
 * Which lease owners (worker processes) are alive, told by the backend's own sessions: an owner announced
 * here is alive exactly while its connection lives, so a process that dies (SIGKILL, OOM) is seen gone
 * at once instead of when its leases lapse. PostgreSQL: a session advisory lock per owner.
 */
export interface OwnerPresence {
  /** Marks `owner` alive until this driver closes (or its process dies). Call before claiming runs as it. */
  announce(owner: string): Promise<void>;
  /** Of `owners`, those alive now. An owner never announced reads as not alive: check only announced ones. */
  alive(owners: string[]): Promise<Set<string>>;
}

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
  /**
   * Optional: runs `fn` holding the thread's lock, exclusive across every connection and process over
   * the same data (PostgreSQL: a transaction-scoped advisory lock; SQLite: a lock row; memory: the shared
   * state). The engine holds it for short critical sections only — admission, A2A resume checks, thread
   * copy, prune, delete, cancel/rollback — and at the start of each run's execution, never across a graph
   * execution. Not reentrant: `fn` must not take the same thread's lock again. The thread need not exist.
   * Without it the engine serializes these sections within its own process only.
   */
  withThreadLock?<T>(threadId: string, fn: () => Promise<T>): Promise<T>;
  /** Optional: lease owners' liveness (see `OwnerPresence`); without it a dead process's runs wait for their leases. */
  readonly presence?: OwnerPresence;
  truncate(flags: TruncateFlags): Promise<void>;
  /**
   * Optional: resolves once the database answers a trivial statement, rejects when it cannot (closed,
   * unreachable). For health checks (`/ok?check_db=1`, `/ready`); one statement, no table read.
   */
  ping?(): Promise<void>;
  /**
   * Optional: the keys that sealed data here, and re-sealing for rotation (docs/security.md). A driver
   * opened with a sealing cipher seals what users send (threads' values, runs' input and config, results,
   * stored events, store values, checkpoints and writes, cron payloads, webhook payloads, push tokens);
   * without this repo it cannot be started with a key.
   */
  readonly encryption?: EncryptionRepo;
  /** Releases connections and file handles. The driver is unusable afterwards. */
  close(): Promise<void>;
}

/** A key that sealed data in a storage: its id, and a value sealed with it that proves a key is that one. */
export interface RecordedKey {
  keyId: string;
  /** `cipher.sealJson(KEY_CHECK_VALUE, KEY_CHECK_AAD)` as stored. */
  check: unknown;
}

export interface EncryptionRepo {
  /** Every key recorded here, oldest first. */
  keys(): Promise<RecordedKey[]>;
  /** Records a key (no-op when its id is recorded already). */
  recordKey(key: RecordedKey): Promise<void>;
  /** Forgets a key once nothing sealed with it is left (after a rotation). */
  forgetKey(keyId: string): Promise<void>;
  /**
   * Re-seals, with the driver's cipher's primary key, at most `limit` stored values that are not sealed
   * with it (plaintext written before a key was set included), and answers how many it changed: 0 when
   * none is left. Resumable: each call starts from what is still to do. Runs beside a serving server.
   */
  resealBatch(limit: number): Promise<number>;
}

/** What the server gives a custom driver module's function export (`--storage ./driver.ts:export`). */
export interface StorageOpenOptions {
  /** Absolute folder of langgraph.json. */
  projectDir: string;
  /** Absolute `--data-dir` (default `<projectDir>/.agent-server`); it may not exist yet. */
  dataDir: string;
  /** Seals what users send when a key is set (LANGGRAPH_AES_KEY); a driver without `encryption` ignores it. */
  cipher?: FieldCipher;
}

/** A custom driver module may export a `Storage`, or this: a function (sync or async) returning one. */
export type StorageFactory = (options: StorageOpenOptions) => Storage | Promise<Storage>;
