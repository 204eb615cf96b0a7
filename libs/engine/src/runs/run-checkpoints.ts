import type { BaseCheckpointSaver, CheckpointTuple } from "@langchain/langgraph-checkpoint";
import type { RunnableConfig } from "@langchain/core/runnables";
import { canPrepareCheckpointWrites, type PreparedCheckpointWrite, type PreparingCheckpointSaver, type Storage } from "@agent-server/core";

/**
 * Where LangGraph looks for a saver lent to a graph call before its own (`Pregel._resolveCheckpointer`;
 * a parent graph lends its saver to subgraphs the same way). Not exported by @langchain/langgraph.
 */
export const LENT_CHECKPOINTER_KEY = "__pregel_checkpointer";

/** How long a run holds a checkpoint write before committing it (docs/engine.md, "Checkpoint writes of a run"). */
export const CHECKPOINT_HOLD_MS = 50;

type Put = BaseCheckpointSaver["put"];
type PutWrites = BaseCheckpointSaver["putWrites"];
type Read = (config: RunnableConfig) => Promise<void>;

/**
 * The checkpoint writes runs hold, by thread. LangGraph does not wait for a checkpoint write between steps
 * ("async" durability, its default and the official server's): it waits for all of them when the graph
 * call ends. A run here holds its writes, serialized at once, for up to `holdMs` and commits them
 * together, and at its end commits what is left before it settles: a run of a few quick steps commits one
 * transaction (SQLite) or one statement (PostgreSQL) instead of one per write. What a crash can lose is
 * what LangGraph's own durability allows (the steps since the last commit; the run then resumes from the
 * last committed checkpoint), bounded by `holdMs`.
 *
 * Readers see held writes: every read through `reading` (the graphs' checkpointer and the engine's state
 * reads) and every read of the run's own graph commits the thread's held writes first. Only savers that
 * can prepare writes (`PreparingCheckpointSaver`: SQLite, PostgreSQL) hold; on others a run's writes go
 * straight to the saver.
 */
export class HeldCheckpointWrites {
  private readonly holders = new Map<string, Set<RunCheckpoints>>();
  /** The saver as readers should use it: a read of a thread first commits what its runs hold. */
  readonly reading: BaseCheckpointSaver;

  constructor(
    readonly saver: BaseCheckpointSaver,
    private readonly holdMs = CHECKPOINT_HOLD_MS,
  ) {
    this.reading = readThrough(saver, (config) => this.commitThread(config));
  }

  /**
   * The checkpoints of one run's graph call, and the saver to lend it. `newThread`: the run's own
   * admission created its thread (first attempt), so LangGraph's opening read of the thread's latest root
   * checkpoint is answered "none" without asking storage. Undefined when the run would get the saver as it is.
   */
  forRun(threadId: string, options: { newThread: boolean }): RunCheckpoints | undefined {
    const preparing = canPrepareCheckpointWrites(this.saver) ? this.saver : undefined;
    if (!preparing && !options.newThread) return undefined;
    return new RunCheckpoints(this, threadId, preparing, this.holdMs, options.newThread);
  }

  /** Commits what the runs of `config`'s thread hold; a run's failed commit is that run's to report. */
  async commitThread(config: RunnableConfig): Promise<void> {
    const threadId = config.configurable?.thread_id;
    const holders = typeof threadId === "string" ? this.holders.get(threadId) : undefined;
    if (!holders) return;
    await Promise.all([...holders].map((run) => run.commit().catch(() => undefined)));
  }

  /** @internal */
  hold(threadId: string, run: RunCheckpoints): void {
    let holders = this.holders.get(threadId);
    if (!holders) this.holders.set(threadId, (holders = new Set()));
    holders.add(run);
  }

  /** @internal */
  release(threadId: string, run: RunCheckpoints): void {
    const holders = this.holders.get(threadId);
    if (!holders?.delete(run)) return;
    if (holders.size === 0) this.holders.delete(threadId);
  }
}

/** One run's graph call: the saver lent to it and the writes it holds (see `HeldCheckpointWrites`). */
export class RunCheckpoints {
  readonly saver: BaseCheckpointSaver;
  private held: PreparedCheckpointWrite[] = [];
  private timer: NodeJS.Timeout | undefined;
  /** The commits under way, in order; a failed one is remembered in `failure`. */
  private committed: Promise<void> = Promise.resolve();
  private failure: { error: unknown } | undefined;
  private closed = false;
  private registered = false;

  constructor(
    private readonly writes: HeldCheckpointWrites,
    private readonly threadId: string,
    private readonly preparing: PreparingCheckpointSaver | undefined,
    private readonly holdMs: number,
    newThread: boolean,
  ) {
    const saver = writes.saver;
    let firstRead = newThread;
    const commitFirst: Read = (config) => (this.preparing ? this.writes.commitThread(config) : Promise.resolve());
    const overrides: Partial<Record<keyof BaseCheckpointSaver, unknown>> = readOverrides(saver, commitFirst, (config) => {
      const first = firstRead;
      firstRead = false;
      const { checkpoint_ns, checkpoint_id } = config.configurable ?? {};
      return first && (checkpoint_ns ?? "") === "" && checkpoint_id === undefined;
    });
    if (preparing) {
      const put: Put = async (config, checkpoint, metadata, newVersions) => {
        this.throwIfFailed();
        this.hold(await preparing.prepareCheckpoint(config, checkpoint, metadata, newVersions));
        return {
          configurable: {
            thread_id: config.configurable?.thread_id,
            checkpoint_ns: config.configurable?.checkpoint_ns ?? "",
            checkpoint_id: checkpoint.id,
          },
        };
      };
      const putWrites: PutWrites = async (...args) => {
        this.throwIfFailed();
        if (args[1].length > 0) this.hold(await preparing.preparePendingWrites(...args));
      };
      Object.assign(overrides, { put, putWrites });
    }
    this.saver = lend(saver, overrides);
  }

  /** Commits what the run holds now; resolves once every commit so far has landed, rejects if one failed. */
  commit(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const batch = this.held;
    this.held = [];
    if (batch.length > 0 && this.preparing) {
      const saver = this.preparing;
      this.committed = this.committed
        .then(() => (this.failure ? undefined : saver.commitPrepared(batch)))
        .catch((error: unknown) => {
          this.failure ??= { error };
        });
    }
    return this.committed.then(() => this.throwIfFailed());
  }

  /**
   * The graph call has ended: commits what is held and stops holding (a graph a time limit left running
   * writes straight through from now on). Rejects with the first commit that failed.
   */
  close(): Promise<void> {
    this.closed = true;
    return this.commit().finally(() => {
      if (this.registered) this.writes.release(this.threadId, this);
      this.registered = false;
    });
  }

  private hold(prepared: PreparedCheckpointWrite): void {
    this.held.push(prepared);
    if (!this.registered && !this.closed) {
      this.writes.hold(this.threadId, this);
      this.registered = true;
    }
    if (this.closed) void this.commit().catch(() => undefined);
    else this.timer ??= setTimeout(() => void this.commit().catch(() => undefined), this.holdMs);
  }

  private throwIfFailed(): void {
    if (this.failure) throw this.failure.error;
  }
}

/**
 * `storage` with `checkpointer` read through `writes` (the engine's view: its state reads see what runs
 * hold). Methods stay bound to the driver itself.
 */
export function withHeldCheckpoints(storage: Storage, writes: HeldCheckpointWrites): Storage {
  const bound = new Map<PropertyKey, unknown>();
  return new Proxy(storage, {
    get(target, property) {
      if (property === "checkpointer") return writes.reading;
      return boundMember(target, property, bound);
    },
  });
}

/** The saver with reads that first commit what runs hold of the thread read. */
function readThrough(saver: BaseCheckpointSaver, commitFirst: Read): BaseCheckpointSaver {
  return lend(
    saver,
    readOverrides(saver, commitFirst, () => false),
  );
}

/**
 * The saver's reads, each first committing held writes (`commitFirst`); `answeredNone`: a read answered
 * "no checkpoint" without storage (a new thread's opening read).
 */
function readOverrides(
  saver: BaseCheckpointSaver,
  commitFirst: Read,
  answeredNone: (config: RunnableConfig) => boolean,
): Partial<Record<keyof BaseCheckpointSaver, unknown>> {
  const getTuple = async (config: RunnableConfig): Promise<CheckpointTuple | undefined> => {
    if (answeredNone(config)) return undefined;
    await commitFirst(config);
    return saver.getTuple(config);
  };
  return {
    getTuple,
    get: async (config: RunnableConfig) => (await getTuple(config))?.checkpoint,
    list: async function* (config: RunnableConfig, options?: Parameters<BaseCheckpointSaver["list"]>[1]) {
      await commitFirst(config);
      yield* saver.list(config, options);
    },
    getDeltaChannelHistory: async (options: Parameters<BaseCheckpointSaver["getDeltaChannelHistory"]>[0]) => {
      await commitFirst(options.config);
      return saver.getDeltaChannelHistory(options);
    },
  };
}

/** `saver` with `overrides`; every other member bound to the saver itself (its own state stays one). */
function lend(saver: BaseCheckpointSaver, overrides: Partial<Record<keyof BaseCheckpointSaver, unknown>>): BaseCheckpointSaver {
  const bound = new Map<PropertyKey, unknown>();
  return new Proxy(saver, {
    get(target, property) {
      if (Object.hasOwn(overrides, property)) return overrides[property as keyof BaseCheckpointSaver];
      return boundMember(target, property, bound);
    },
  });
}

function boundMember(target: object, property: PropertyKey, bound: Map<PropertyKey, unknown>): unknown {
  const value: unknown = Reflect.get(target, property, target);
  if (typeof value !== "function") return value;
  if (!bound.has(property)) bound.set(property, (value as (...args: unknown[]) => unknown).bind(target));
  return bound.get(property);
}
