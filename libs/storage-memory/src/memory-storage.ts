import { RepoBackedStore, type SignalBus, type Storage, type TruncateFlags } from "@agent-server/core";
import type { BaseCheckpointSaver, BaseStore } from "@langchain/langgraph-checkpoint";
import { MemoryAssistantRepo } from "./assistants.js";
import { MemoryCronRepo } from "./crons.js";
import { MemoryDeliveryRepo } from "./deliveries.js";
import { MemoryEventRepo } from "./events.js";
import { MemoryPushConfigRepo } from "./push-configs.js";
import { MemoryRunRepo } from "./runs.js";
import { MemoryState } from "./state.js";
import { MemoryStoreRepo } from "./store.js";
import { MemoryThreadRepo } from "./threads.js";

/**
 * The in-memory driver. Several instances may share one `MemoryState` (as connections share a database);
 * `close()` detaches an instance and leaves the state to the others.
 */
export class MemoryStorage implements Storage {
  readonly kind = "memory";
  readonly assistants: MemoryAssistantRepo;
  readonly threads: MemoryThreadRepo;
  readonly runs: MemoryRunRepo;
  readonly store: MemoryStoreRepo;
  readonly crons: MemoryCronRepo;
  readonly deliveries: MemoryDeliveryRepo;
  readonly events: MemoryEventRepo;
  readonly pushConfigs: MemoryPushConfigRepo;
  /** Shared by every instance over one state (reach "database": they are one database's connections). */
  readonly signals: SignalBus;
  readonly checkpointer: BaseCheckpointSaver;
  readonly langgraphStore: BaseStore;
  private closed = false;

  constructor(readonly state: MemoryState = new MemoryState()) {
    this.assistants = new MemoryAssistantRepo(state);
    this.threads = new MemoryThreadRepo(state);
    this.runs = new MemoryRunRepo(state);
    this.store = new MemoryStoreRepo(state);
    this.crons = new MemoryCronRepo(state);
    this.deliveries = new MemoryDeliveryRepo(state);
    this.events = new MemoryEventRepo(state);
    this.pushConfigs = new MemoryPushConfigRepo(state);
    this.signals = state.signals;
    this.checkpointer = state.checkpointer;
    this.langgraphStore = new RepoBackedStore(this.store);
  }

  get isClosed(): boolean {
    return this.closed;
  }

  withThreadLock<T>(threadId: string, fn: () => Promise<T>): Promise<T> {
    return this.state.threadLocks.run(threadId, fn);
  }

  async truncate(flags: TruncateFlags): Promise<void> {
    const s = this.state;
    if (flags.runs || flags.threads) {
      // Runs belong to threads: truncating threads takes their runs along (no orphans). removeRun also
      // drops the runs' push configs and task-lineage index entries.
      for (const runId of [...s.runs.keys()]) s.removeRun(runId);
      s.events.clear();
    }
    if (flags.threads) s.threads.clear();
    if (flags.assistants) {
      s.assistants.clear();
      for (const cronId of [...s.crons.keys()]) s.removeCron(cronId);
    }
    if (flags.store) s.items.clear();
    if (flags.checkpointer || flags.threads) {
      for (const key of Object.keys(s.checkpointer.storage)) delete s.checkpointer.storage[key];
      for (const key of Object.keys(s.checkpointer.writes)) delete s.checkpointer.writes[key];
    }
  }

  async ping(): Promise<void> {
    if (this.closed) throw new Error("the memory storage is closed");
  }

  async close(): Promise<void> {
    this.closed = true;
  }
}

export function createMemoryStorage(state?: MemoryState): MemoryStorage {
  return new MemoryStorage(state);
}
