import { v7 as uuidv7 } from "uuid";
import {
  ACTIVE_RUN_STATUSES,
  addMs,
  ConflictError,
  NotFoundError,
  nowIso,
  readThreadHeader,
  ThreadExistsError,
  type Assistant,
  type NewRun,
  type NewThread,
  type Run,
  type RunCreateOptions,
  type RunInternal,
  type Storage,
  type ThreadHeader,
  type ThreadTtl,
} from "@agent-server/core";
import type { AssistantCache } from "./assistant-cache.js";
import type { GraphRegistry } from "../graphs/registry.js";
import { withTraceparent } from "../tracing/index.js";
import type { AdmissionOptions, EngineRunKwargs, RunAuthContext, RunCreateRequest } from "./run-request.js";
import { admittedRunTimeout, RUN_TIMEOUT_KEY } from "./run-timeout.js";
import { CancelReasons } from "./cancel-reason.js";
import type { HeldThreadLock } from "./thread-lock.js";
import { deleteThreadEventually } from "./storage-retry.js";

/** A run admission wrote, with the `internal` marker it stored (the executor of a claimed run needs it). */
export interface AdmittedRun {
  run: Run;
  internal: RunInternal;
  /** This admission (or its caller, `loaded.newThread`) created the run's thread: it has no checkpoint yet. */
  newThread: boolean;
}

/** The checkpoint a run request names does not exist on its thread (a 404, like any NotFoundError). */
export class CheckpointNotFoundError extends NotFoundError {}

/**
 * LangGraph's strict resume switch in a call's `configurable` (CONFIG_KEY_STRICT_RESUME in its
 * constants, not exported): with it, a `Command` resume naming an interrupt that is not pending, an empty
 * resume map, or one value for several pending interrupts fails with `UnknownInterruptError`.
 */
const STRICT_RESUME_KEY = "__pregel_strict_resume";

export const REJECT_MESSAGE = "Thread is already running a task. Wait for it to finish or choose a different multitask strategy.";

/**
 * Admission: validates a create-run request against assistants, graphs and threads, and writes the
 * pending run. Nothing is left half-created: a temporary thread made for a stateless run is removed
 * again when the run cannot be created.
 */
export class Admission {
  constructor(
    private readonly storage: Storage,
    private readonly assistants: Pick<AssistantCache, "get">,
    private readonly registry: GraphRegistry,
    /** Cancels runs of the thread admission holds the lock of (`held`), for `reason` (cancel-reason.ts). */
    private readonly cancel: (
      runIds: string[],
      action: "interrupt" | "rollback",
      held: HeldThreadLock | undefined,
      reason: string,
    ) => Promise<unknown>,
    /** The server's run time limit (run-timeout.ts); an assistant's or request's `config.run_timeout` is fixed against it. */
    private readonly runTimeoutMs?: number,
    /** The TTL of a thread admission creates (langgraph.json `checkpointer.ttl.default_ttl`), if any. */
    private readonly threadTtl: () => ThreadTtl | undefined = () => undefined,
  ) {}

  async admit(request: RunCreateRequest, options: AdmissionOptions = {}): Promise<AdmittedRun> {
    const assistant = await this.assistant(request.assistant_id, options.loaded?.assistant);
    // Ids this server mints are UUIDv7 (time-ordered): a new row's key lands on the last page of every index
    // keyed by it, not on a random one (fewer pages written per commit, a warm page cache).
    const runId = options.runId ?? uuidv7();
    const stateless = options.threadId === undefined;
    const runTimeout = admittedRunTimeout(assistant.config, request.config ?? undefined, this.runTimeoutMs);
    // Before anything is written: a run from a checkpoint that does not exist must not start from an
    // empty state and replace the thread's current one.
    await this.requireCheckpoint(request, stateless ? undefined : options.threadId);
    const loadedThread = options.loaded?.thread;
    const given = !stateless && options.createThread?.thread_id === options.threadId ? options.createThread : undefined;
    // A thread made for this run (stateless, or the caller's `createThread`): written with the run when the
    // driver can (`pending`), else first; removed again if the run cannot be inserted.
    const own = stateless ? this.temporaryThread(assistant, request) : given;
    let thread: ThreadHeader;
    let pending: NewThread | undefined;
    if (own) {
      if (this.storage.runs.createWithThread) {
        pending = own;
        thread = threadHeader(own);
      } else thread = await this.storage.threads.create(own);
    } else if (loadedThread && loadedThread.thread_id === options.threadId) thread = loadedThread;
    else ({ thread, pending } = await this.thread(options.threadId!, request, assistant));
    const strategy = request.multitask_strategy ?? "reject";
    // Made by this call (here, or by the caller: `createThread`, `loaded.newThread`) under an id nobody else
    // has seen, so no other run of it can exist.
    const newThread = own !== undefined || (options.loaded?.newThread === true && loadedThread?.thread_id === options.threadId);
    const internal = withTraceparent(options.internal) ?? {};
    let run: Run;
    try {
      const insert = (input: NewRun, runOptions: RunCreateOptions) =>
        pending ? this.storage.runs.createWithThread!(pending, input, runOptions) : this.storage.runs.create(input, runOptions);
      run = await insert(
        {
          run_id: runId,
          thread_id: thread.thread_id,
          assistant_id: assistant.assistant_id,
          status: options.cancelled ? "interrupted" : "pending",
          metadata: request.metadata ?? {},
          kwargs: {
            ...this.kwargs(request, assistant, thread, runId, stateless, options.auth, runTimeout),
            ...(options.protocol
              ? { protocol: true, ...(options.protocol.answered?.length ? { answered: options.protocol.answered } : {}) }
              : {}),
          },
          multitask_strategy: strategy,
          created_at: request.after_seconds ? addMs(nowIso(), request.after_seconds * 1000) : undefined,
          // Cancelled from the start (`Engine.createCancelledRun`): a client's cancel, like any other.
          ...(options.cancelled ? { cancel_reason: CancelReasons.request } : {}),
        },
        { internal, rejectIfThreadActive: strategy === "reject", ...(options.claim ? { claim: { ...options.claim, newThread } } : {}) },
      );
    } catch (error) {
      // Written on its own before the run: removed again. Written with it: nothing was.
      if (own && !pending) await deleteThreadEventually(this.storage, thread.thread_id);
      if (error instanceof ThreadExistsError) {
        // `if_not_exists: "create"` and the thread was created meanwhile: admitted on it, as if it had been there.
        if (pending && !own) return this.admit(request, options);
        throw error;
      }
      if (error instanceof ConflictError) throw new ConflictError(REJECT_MESSAGE);
      throw error;
    }
    // A thread created by this admission has no other run to cancel.
    if (!newThread && !pending && !options.cancelled && (strategy === "interrupt" || strategy === "rollback")) {
      const inflight = await this.storage.runs.search({ thread_id: thread.thread_id, status: [...ACTIVE_RUN_STATUSES], limit: 1000 });
      const others = inflight.filter((r) => r.run_id !== runId).map((r) => r.run_id);
      if (others.length > 0) await this.cancel(others, strategy, options.heldLock, CancelReasons.multitask(strategy, runId));
    }
    return { run, internal, newThread };
  }

  private async assistant(assistantIdOrGraph: string, loaded?: Assistant): Promise<Assistant> {
    const assistantId = this.registry.resolveAssistantId(assistantIdOrGraph);
    const assistant = loaded?.assistant_id === assistantId ? loaded : await this.assistants.get(assistantId);
    if (!assistant) throw new NotFoundError(`Assistant "${assistantIdOrGraph}" not found`);
    if (!this.registry.has(assistant.graph_id)) throw new NotFoundError(`Graph "${assistant.graph_id}" not found`);
    return assistant;
  }

  /**
   * The run's thread. Missing, with `if_not_exists: "create"`: to be written with the run (`pending`) when
   * the driver can, else created here (an existing one, created meanwhile, is taken as it is).
   */
  private async thread(
    threadId: string,
    request: RunCreateRequest,
    assistant: Assistant,
  ): Promise<{ thread: ThreadHeader; pending?: NewThread }> {
    // Its config and id are what admission needs: the state is not read (a long thread's is large).
    const existing = await readThreadHeader(this.storage.threads, threadId);
    if (existing) return { thread: existing };
    if (request.if_not_exists === "create") {
      const create: NewThread = { thread_id: threadId, metadata: threadMetadata(assistant, request), ...withTtl(this.threadTtl()) };
      if (this.storage.runs.createWithThread) return { thread: threadHeader(create), pending: create };
      return { thread: await this.storage.threads.create(create, { ifExists: "do_nothing" }) };
    }
    throw new NotFoundError(`Thread "${threadId}" not found`);
  }

  /**
   * The checkpoint a request names (`checkpoint`, then `checkpoint_id`, then `config.configurable`, the
   * order `kwargs` merges them in) must exist on the thread: otherwise a NotFoundError (404). A thread
   * that does not exist yet (stateless, `if_not_exists: "create"`) has no checkpoints at all.
   */
  private async requireCheckpoint(request: RunCreateRequest, threadId: string | undefined): Promise<void> {
    const configurable = request.config?.configurable ?? {};
    const checkpointId = request.checkpoint?.checkpoint_id ?? request.checkpoint_id ?? configurable.checkpoint_id;
    if (checkpointId === undefined || checkpointId === null || checkpointId === "") return;
    const checkpointNs = request.checkpoint?.checkpoint_ns ?? configurable.checkpoint_ns ?? "";
    const found =
      threadId !== undefined &&
      (await this.storage.checkpointer.getTuple({
        configurable: { thread_id: threadId, checkpoint_ns: checkpointNs, checkpoint_id: checkpointId },
      }));
    if (!found) throw new CheckpointNotFoundError(`Checkpoint "${String(checkpointId)}" not found on this thread`);
  }

  private temporaryThread(assistant: Assistant, request: RunCreateRequest): NewThread {
    return { thread_id: uuidv7(), metadata: threadMetadata(assistant, request), ...withTtl(this.threadTtl()) };
  }

  private kwargs(
    request: RunCreateRequest,
    assistant: Assistant,
    thread: ThreadHeader,
    runId: string,
    stateless: boolean,
    auth: RunAuthContext | undefined,
    runTimeout: number | undefined,
  ): EngineRunKwargs {
    const modes = request.stream_mode === undefined ? ["values" as const] : [request.stream_mode].flat();
    const configurable: Record<string, unknown> = {
      ...assistant.config.configurable,
      ...thread.config?.configurable,
      ...request.config?.configurable,
    };
    // Who the caller is comes only from authentication, never from stored or submitted config
    // (a cron payload or a request could otherwise name another user to the graph).
    for (const key of Object.keys(configurable)) {
      if (key.startsWith("langgraph_auth_")) delete configurable[key];
    }
    if (request.checkpoint_id) configurable.checkpoint_id = request.checkpoint_id;
    if (request.checkpoint) Object.assign(configurable, request.checkpoint);
    // Strict resume: LangGraph itself refuses a resume that does not match the pending interrupts, before
    // it writes anything (`UnknownInterruptError`), when the call's config carries this key.
    if (request.strict_resume) configurable[STRICT_RESUME_KEY] = true;
    if (auth) {
      configurable.langgraph_auth_user = auth.user;
      configurable.langgraph_auth_user_id = auth.user.identity;
      configurable.langgraph_auth_permissions = auth.permissions;
    }
    // Set last: these identify the run and must not be overridable by the request.
    Object.assign(configurable, {
      run_id: runId,
      thread_id: thread.thread_id,
      graph_id: assistant.graph_id,
      assistant_id: assistant.assistant_id,
    });
    return {
      input: request.input,
      command: request.command ?? undefined,
      config: {
        ...assistant.config,
        ...request.config,
        configurable,
        ...(runTimeout !== undefined ? { [RUN_TIMEOUT_KEY]: runTimeout } : {}),
        // The run's metadata reaches checkpoint metadata, so history can be filtered by it (as upstream).
        metadata: { ...assistant.config.metadata, ...request.config?.metadata, ...request.metadata },
      },
      context: request.context ?? assistant.context ?? undefined,
      stream_mode: modes.length > 0 ? modes : ["values"],
      interrupt_before: request.interrupt_before,
      interrupt_after: request.interrupt_after,
      webhook: request.webhook,
      temporary: stateless && (request.on_completion ?? "delete") === "delete",
      subgraphs: request.stream_subgraphs ?? false,
      resumable: request.stream_resumable ?? false,
      on_disconnect: request.on_disconnect,
      ...(request.strict_resume ? { strict_resume: true } : {}),
    };
  }
}

/**
 * Metadata of a thread that admission creates (stateless, or `if_not_exists: "create"`): the graph and
 * assistant, then the run's metadata, as the official server does. The run's metadata is what an auth
 * handler stamped (an owner, say), so the caller can see the thread it just caused to exist.
 */
function threadMetadata(assistant: Assistant, request: RunCreateRequest): Record<string, unknown> {
  return { graph_id: assistant.graph_id, assistant_id: assistant.assistant_id, ...request.metadata };
}

/** A thread still to be written, as admission reads one (its id and config make the run's config). */
function threadHeader(thread: NewThread): ThreadHeader {
  const now = thread.created_at ?? nowIso();
  return {
    thread_id: thread.thread_id,
    created_at: now,
    updated_at: now,
    metadata: thread.metadata ?? {},
    config: thread.config ?? {},
    status: thread.status ?? "idle",
    error: null,
  };
}

function withTtl(ttl: ThreadTtl | undefined): { ttl?: ThreadTtl } {
  return ttl ? { ttl } : {};
}
