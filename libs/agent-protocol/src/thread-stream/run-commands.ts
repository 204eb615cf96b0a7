import { ConflictError, matchesAuthFilter, type Metadata, type Thread } from "@agent-server/core";
import { CheckpointNotFoundError, createRunAuthValue, REJECT_MESSAGE, type RunCommand, type RunCreateRequest } from "@agent-server/engine";
import { runAuthContext } from "../auth/request-auth.js";
import { withHeaders } from "../runs/create.js";
import { ProtocolError } from "./envelopes.js";
import type { z } from "@hono/zod-openapi";
import { InputInjectParams, inputRespondSchema, type InputRespondParams, parseParams, RunStartParams, StateForkParams } from "./params.js";
import { pendingInterruptIds, threadNotFound, type CommandCaller } from "./thread-reads.js";

/**
 * The commands that start runs: `run.start`, `input.respond`, `input.inject` and `state.fork`. Each is an
 * ordinary run (admission, queue, multitask strategy, webhooks, A2A, restarts all apply), marked as a
 * protocol run so its events go to the thread's event log. Like the official servers, a run started here
 * queues behind a busy thread (`enqueue`) unless the client names another strategy, and a thread the
 * client names that does not exist yet is created by its first run.
 */

/**
 * `run.start`: a new run with `input`; on a thread waiting at `interrupt()`, `input` resumes it (as a
 * `Command({ resume })`), as on the official servers. `config.configurable.checkpoint_id` (the SDK's
 * `forkFrom`) starts from that checkpoint.
 */
export async function runStart(caller: CommandCaller, threadId: string, raw: unknown): Promise<{ run_id: string }> {
  const params = parseParams("run.start", RunStartParams, raw);
  const thread = (await caller.deps.storage.threads.get(threadId)) ?? undefined;
  const pending = thread !== undefined && params.input != null ? await pendingInterruptIds(caller, thread) : [];
  const resume = pending.length > 0;
  const runId = await admit(caller, threadId, thread, pending, {
    assistant_id: params.assistant_id,
    ...(resume ? { command: { resume: params.input } } : { input: params.input }),
    config: withHeaders(params.config ?? undefined, caller.headers),
    metadata: params.metadata ?? {},
    multitask_strategy: params.multitask_strategy ?? params.multitaskStrategy ?? "enqueue",
  });
  return { run_id: runId };
}

/**
 * `input.respond`: resumes the thread's pending interrupts by id, in one run (`Command({ resume: { [id]:
 * response }, update, goto })`). Every id must be pending now: `no_such_interrupt` otherwise.
 *
 * With `strict_resume`, the ids are checked by LangGraph when the run executes (it queues behind the
 * thread's current run, so "now" is then): a run naming an interrupt that is no longer pending fails with
 * `UnknownInterruptError`, its root `failed` lifecycle carrying `reason`, `interrupt_ids` and `pending_ids`,
 * and the thread is left as it was. The command itself is accepted, as on the Python server.
 */
export async function inputRespond(caller: CommandCaller, threadId: string, raw: unknown): Promise<{ run_id: string }> {
  const params: z.output<typeof InputRespondParams> = parseParams("input.respond", inputRespondSchema(raw), raw);
  const entries: Array<{ interrupt_id: string; response?: unknown }> =
    "responses" in params && Array.isArray(params.responses) ? params.responses : [params as { interrupt_id: string; response?: unknown }];
  const thread = await requireThread(caller, threadId);
  const strict = params.strict_resume === true;
  const pending = strict ? undefined : new Set(await pendingInterruptIds(caller, thread));
  const unknown = pending && entries.find((entry) => !pending.has(entry.interrupt_id));
  if (unknown) {
    throw new ProtocolError("no_such_interrupt", `Interrupt "${unknown.interrupt_id}" is not pending on thread "${threadId}"`);
  }
  const command: RunCommand = {
    resume: Object.fromEntries(entries.map((entry) => [entry.interrupt_id, entry.response])),
    ...(params.update != null ? { update: params.update as RunCommand["update"] } : {}),
    ...(params.goto != null ? { goto: params.goto as RunCommand["goto"] } : {}),
  };
  const answered = entries.map((entry) => entry.interrupt_id);
  const runId = await admit(caller, threadId, thread, answered, {
    assistant_id: await threadAssistant(caller, thread),
    command,
    config: withHeaders(params.config ?? undefined, caller.headers),
    metadata: params.metadata ?? {},
    multitask_strategy: "enqueue",
    ...(strict ? { strict_resume: true } : {}),
  });
  return { run_id: runId };
}

/**
 * `input.inject`: a user (or system) message for the thread's agent while it works. A graph cannot take
 * input in the middle of a step, so the message is the input of a run queued behind the current one
 * (`{ messages: [message] }`); on an idle thread it starts at once.
 */
export async function inputInject(caller: CommandCaller, threadId: string, raw: unknown): Promise<{ run_id: string }> {
  const params = parseParams("input.inject", InputInjectParams, raw);
  const thread = await requireThread(caller, threadId);
  const runId = await admit(caller, threadId, thread, [], {
    assistant_id: await threadAssistant(caller, thread),
    input: { messages: [params.message] },
    config: withHeaders(undefined, caller.headers),
    multitask_strategy: "enqueue",
  });
  return { run_id: runId };
}

/** `state.fork`: a run of the thread's assistant from `checkpoint_id` (a new branch of its history). */
export async function stateFork(caller: CommandCaller, threadId: string, raw: unknown): Promise<{ run_id: string; thread_id: string }> {
  const params = parseParams("state.fork", StateForkParams, raw);
  const thread = await requireThread(caller, threadId);
  const config = params.config ?? {};
  const configurable = { ...(config.configurable as Record<string, unknown> | undefined), checkpoint_id: params.checkpoint_id };
  const runId = await admit(caller, threadId, thread, [], {
    assistant_id: await threadAssistant(caller, thread),
    input: params.input ?? null,
    config: withHeaders({ ...config, configurable }, caller.headers),
    multitask_strategy: "enqueue",
  });
  return { run_id: runId, thread_id: threadId };
}

/**
 * Admits a protocol run after `threads:create_run` authorization (the handler may stamp metadata, which
 * the run, and a thread admission creates for it, get). An existing thread outside the caller's filter
 * reads as missing, as on the REST API.
 */
async function admit(
  caller: CommandCaller,
  threadId: string,
  thread: Thread | undefined,
  answered: string[],
  request: RunCreateRequest,
): Promise<string> {
  const { auth, deps } = caller;
  request.if_not_exists = "create";
  const value = createRunAuthValue(threadId, request);
  const filter = await auth.authorize("threads", "create_run", value);
  if (thread && filter && !matchesAuthFilter(thread.metadata, filter)) throw threadNotFound(threadId);
  request.metadata = (value.metadata as Metadata | undefined) ?? {};
  try {
    const run = await deps.engine.createRun(request, {
      threadId,
      auth: runAuthContext(auth),
      protocol: { answered },
      ...(thread ? { loaded: { thread } } : {}),
    });
    return run.run_id;
  } catch (error) {
    if (error instanceof CheckpointNotFoundError) throw new ProtocolError("no_such_checkpoint", error.message);
    if (error instanceof ConflictError) throw new ProtocolError("invalid_argument", REJECT_MESSAGE);
    throw error;
  }
}

async function requireThread(caller: CommandCaller, threadId: string): Promise<Thread> {
  const thread = await caller.deps.storage.threads.get(threadId);
  if (!thread) throw new ProtocolError("no_such_run", `Thread "${threadId}" has no runs yet: start one with run.start`);
  return thread;
}

/** The assistant a command without one runs: the thread's latest run's, else the one that created it. */
async function threadAssistant(caller: CommandCaller, thread: Thread): Promise<string> {
  const [latest] = await caller.deps.storage.runs.search({ thread_id: thread.thread_id, limit: 1 });
  const fromMetadata = thread.metadata?.assistant_id ?? thread.metadata?.graph_id;
  const assistant = latest?.assistant_id ?? (typeof fromMetadata === "string" ? fromMetadata : undefined);
  if (!assistant) throw new ProtocolError("no_such_run", `Thread "${thread.thread_id}" has no runs yet: start one with run.start`);
  return assistant;
}
