import type { CallToolRequest, CallToolResult, ServerNotification, ServerRequest } from "@modelcontextprotocol/sdk/types.js";
import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
import { v7 as uuidv7 } from "uuid";
import {
  AgentServerError,
  storageFault,
  matchesAuthFilter,
  NotFoundError,
  type AuthFilter,
  type Metadata,
  type Run,
  type RunnableConfig,
  type Thread,
} from "@agent-server/core";
import {
  configurableFromHeaders,
  deleteThreadEventually,
  createRunAuthValue,
  type RunCreateRequest,
  type RunEnd,
  type RunEventStream,
} from "@agent-server/engine";
import { traceCall } from "../tracing.js";
import { callerFrom, refusalText, type McpCaller } from "./caller.js";
import { InputValidators } from "./input-validation.js";
import { progressReporter, type ProgressReporter } from "./progress.js";
import { RESUME_META, THREAD_ID_META, toolError, toolResult } from "./tool-result.js";
import type { McpDeps, ToolCatalog, ToolEntry } from "./tools.js";

export type CallExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** Where failures that are not the caller's are reported (the server's logger fits). */
export interface McpLogger {
  error(fields: Record<string, unknown>, message: string): void;
}

/**
 * Told once per `tools/call`, when it is answered: `tool` is the tool's name, or `UNKNOWN_TOOL` when the
 * call named no tool of the caller's (label values stay bounded); `error` is a result with `isError`.
 */
export type McpToolCallObserver = (tool: string, outcome: "ok" | "error") => void;

export const UNKNOWN_TOOL = "(unknown)";

/** How long trailing progress events may take to arrive once the run has ended, before the result goes out. */
const PROGRESS_DRAIN_MS = 1000;

/** A call's own refusal: answered as a tool error with this text, nothing created. */
class CallRefused extends Error {}

/**
 * `tools/call`: runs the tool's assistant and answers how the run ended (tool-result.ts).
 *
 * 1. The tool is looked up among the caller's tools (tools.ts), so a call reaches only what tools/list shows.
 * 2. `_meta["langgraph/thread_id"]` names an existing thread to run on; without it a new thread is made.
 *    `_meta["langgraph/resume"]` (on a thread waiting at an interrupt) resumes it with that value instead
 *    of starting from `arguments`.
 * 3. `arguments` are the graph's input, checked against the tool's input schema first.
 * 4. Authorization as the HTTP API applies it: `threads:create` for a new thread (the handler may set its
 *    metadata), `threads:create_run` for the run (its filter must match the thread's metadata, else the
 *    thread is "not found"); the caller's identity goes into the run's config as for HTTP runs.
 * 5. The run is admitted with `multitask_strategy: "enqueue"`: a call on a thread that is busy waits its turn.
 * 6. While it runs: progress notifications when the client asked (progress.ts); a cancelled request
 *    (`notifications/cancelled`, a closed session), a dropped connection or the server's call limit
 *    (`mcp.call_timeout`) cancels the run (`engine.cancel`).
 *
 * Every failure is a tool result with `isError: true`; nothing is created before the checks pass.
 */
export class ToolCalls {
  private readonly validators = new InputValidators();

  constructor(
    private readonly deps: McpDeps,
    private readonly catalog: ToolCatalog,
    private readonly logger: McpLogger,
    /** The call's time limit in ms (0: none): past it the run is cancelled and the call answers why. */
    private readonly callTimeoutMs = 0,
    private readonly observe?: McpToolCallObserver,
  ) {}

  async call(params: CallToolRequest["params"], extra: CallExtra): Promise<CallToolResult> {
    if (!this.observe) return this.answer(params, extra);
    const found = { tool: UNKNOWN_TOOL };
    const result = await this.answer(params, extra, found);
    this.observe(found.tool, result.isError === true ? "error" : "ok");
    return result;
  }

  /** `found.tool` is set once the tool is found among the caller's. */
  private async answer(params: CallToolRequest["params"], extra: CallExtra, found?: { tool: string }): Promise<CallToolResult> {
    const caller = callerFrom(extra.authInfo);
    try {
      return await traceCall(
        `tools/call ${params.name}`,
        { "mcp.method.name": "tools/call", "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": params.name },
        () => this.run(caller, params, extra, found),
      );
    } catch (error) {
      if (error instanceof CallRefused || error instanceof AgentServerError) return toolError(error.message);
      const refusal = refusalText(error);
      if (refusal !== undefined) return toolError(refusal);
      const fault = storageFault(error);
      if (fault) {
        this.logger.error(
          { tool: params.name, code: fault.code, error: error instanceof Error ? error.message : String(error) },
          fault.detail,
        );
        return toolError(fault.detail);
      }
      this.logger.error({ tool: params.name, error: error instanceof Error ? error.stack : String(error) }, "MCP tool call failed");
      return toolError("The call failed with an internal error (the server logged it).");
    }
  }

  private async run(
    caller: McpCaller,
    params: CallToolRequest["params"],
    extra: CallExtra,
    found?: { tool: string },
  ): Promise<CallToolResult> {
    const entry = await this.catalog.find(caller, params.name);
    if (!entry) throw new CallRefused(`Unknown tool "${params.name}": tools/list names the tools you may call.`);
    if (found) found.tool = params.name;
    const meta = callMeta(params._meta);
    const args = params.arguments ?? {};
    if (meta.resume !== undefined) {
      if (Object.keys(args).length > 0) {
        throw new CallRefused(`Pass either arguments (a new input) or _meta "${RESUME_META}" (the answer to an interrupt), not both.`);
      }
      if (meta.threadId === undefined)
        throw new CallRefused(`_meta "${RESUME_META}" needs _meta "${THREAD_ID_META}": the thread to resume.`);
    } else {
      const problem = this.validators.check(await this.catalog.inputSchema(entry.assistant), args);
      if (problem) throw new CallRefused(`Invalid arguments for tool "${entry.name}": ${problem}`);
    }
    const request: RunCreateRequest = {
      assistant_id: entry.assistant.assistant_id,
      ...(meta.resume !== undefined ? { command: { resume: meta.resume.value } } : { input: args }),
      config: configFromHeaders(extra.requestInfo?.headers),
      multitask_strategy: "enqueue",
      ...(extra._meta?.progressToken !== undefined ? { stream_mode: ["updates" as const] } : {}),
    };
    const { thread, created } = await this.threadFor(caller, entry, meta, request);
    const progress = progressReporter(extra);
    let admitted: { run: Run; end: Promise<RunEnd>; events?: RunEventStream };
    try {
      admitted = await this.deps.engine.createRunWatched(
        request,
        { threadId: thread.thread_id, ...(caller.auth ? { auth: caller.auth } : {}) },
        { stream: progress !== undefined },
      );
    } catch (error) {
      if (created) await deleteThreadEventually(this.deps.storage, thread.thread_id);
      throw error;
    }
    const limit = this.callTimeoutMs > 0 ? AbortSignal.timeout(this.callTimeoutMs) : undefined;
    const end = await this.follow(admitted, [extra.signal, caller.signal, limit], progress);
    if (limit?.aborted && end.status === "interrupted") {
      return toolError(
        `The call took longer than this server allows (${this.callTimeoutMs / 1000} s): its run ${admitted.run.run_id} was cancelled ` +
          `on thread ${admitted.run.thread_id}. For longer work, start a run through the HTTP API (POST /threads/{thread_id}/runs) and poll it.`,
      );
    }
    return this.outcome(entry, admitted.run, end);
  }

  /**
   * The thread of the call, authorized: the one `_meta` names (`threads:create_run` on it), or a new one
   * (`threads:create`, then `threads:create_run`). A thread the caller may not see is "not found".
   */
  private async threadFor(
    caller: McpCaller,
    entry: ToolEntry,
    meta: CallMeta,
    request: RunCreateRequest,
  ): Promise<{ thread: Thread; created: boolean }> {
    const { storage } = this.deps;
    if (meta.threadId !== undefined) {
      const filter = await this.authorizeRun(caller, meta.threadId, request);
      const thread = await storage.threads.get(meta.threadId);
      if (!thread || !matchesAuthFilter(thread.metadata, filter)) throw new CallRefused(`Thread "${meta.threadId}" not found.`);
      if (meta.resume !== undefined && thread.status !== "interrupted") {
        throw new CallRefused(
          `Thread "${thread.thread_id}" is not waiting at an interrupt (its status is ${thread.status}): nothing to resume.`,
        );
      }
      return { thread, created: false };
    }
    const ref = { thread_id: uuidv7(), metadata: {} as Record<string, unknown> };
    await caller.authorize("threads", "create", ref);
    const ttl = storage.threads.sweep ? this.deps.engine.threadTtl() : undefined; // checkpointer.ttl.default_ttl
    const thread = await storage.threads.create({ thread_id: ref.thread_id, metadata: ref.metadata ?? {}, ...(ttl ? { ttl } : {}) });
    try {
      const filter = await this.authorizeRun(caller, thread.thread_id, request);
      if (!matchesAuthFilter(thread.metadata, filter)) throw new CallRefused(`Not allowed to run "${entry.name}" on a new thread.`);
    } catch (error) {
      await deleteThreadEventually(storage, thread.thread_id);
      throw error;
    }
    return { thread, created: true };
  }

  /** `threads:create_run`, as the HTTP API asks it; the handler may change the run's metadata, which the run then gets. */
  private async authorizeRun(caller: McpCaller, threadId: string, request: RunCreateRequest): Promise<AuthFilter | undefined> {
    const value = createRunAuthValue(threadId, request);
    const filter = await caller.authorize("threads", "create_run", value);
    request.metadata = isMetadata(value.metadata) ? value.metadata : {};
    return filter;
  }

  /** Waits for the run's end, reporting progress, and cancels the run when the call is abandoned. */
  private async follow(
    admitted: { run: Run; end: Promise<RunEnd>; events?: RunEventStream },
    signals: Array<AbortSignal | undefined>,
    progress: ProgressReporter | undefined,
  ): Promise<RunEnd> {
    const { run, end, events } = admitted;
    const abandoned = AbortSignal.any(signals.filter((signal): signal is AbortSignal => signal !== undefined));
    const cancel = () => void this.cancel(run);
    abandoned.addEventListener("abort", cancel, { once: true });
    if (abandoned.aborted) cancel();
    const forwarded = events && progress ? progress.forward(run, events) : Promise.resolve();
    try {
      return await end;
    } finally {
      abandoned.removeEventListener("abort", cancel);
      // The last node's update may still be on its way: it belongs before the result.
      await Promise.race([forwarded, new Promise((resolve) => setTimeout(resolve, PROGRESS_DRAIN_MS).unref?.())]);
      events?.close();
      await forwarded;
    }
  }

  private async cancel(run: Run): Promise<void> {
    try {
      await this.deps.engine.cancel([run.run_id], { action: "interrupt", threadId: run.thread_id });
    } catch (error) {
      // Ended (or erased) meanwhile: nothing left to cancel.
      if (!(error instanceof NotFoundError))
        this.logger.error({ run_id: run.run_id, error: String(error) }, "MCP: cancelling a run failed");
    }
  }

  /** The result: values and (when the thread waits) its interrupts, as settlement left the thread. */
  private async outcome(entry: ToolEntry, run: Run, end: RunEnd): Promise<CallToolResult> {
    const needsThread = end.values === null || (end.status === "success" && !end.thread);
    const thread = needsThread ? await this.deps.storage.threads.get(run.thread_id) : null;
    const after = end.thread ?? thread;
    const waiting = end.status === "success" && after?.status === "interrupted";
    return toolResult({
      toolName: entry.name,
      assistantId: entry.assistant.assistant_id,
      threadId: run.thread_id,
      runId: run.run_id,
      end,
      values: end.values ?? thread?.values ?? null,
      interrupts: waiting ? Object.values(after.interrupts ?? {}).flat() : undefined,
    });
  }
}

interface CallMeta {
  threadId?: string;
  /** Present when the call resumes an interrupt (the value may be null). */
  resume?: { value: unknown };
}

function callMeta(meta: Record<string, unknown> | undefined): CallMeta {
  const result: CallMeta = {};
  const threadId = meta?.[THREAD_ID_META];
  if (threadId !== undefined) {
    if (typeof threadId !== "string" || threadId.trim() === "") {
      throw new CallRefused(`_meta "${THREAD_ID_META}" must be a thread id (a string), got ${JSON.stringify(threadId)}.`);
    }
    result.threadId = threadId.trim();
  }
  if (meta && Object.hasOwn(meta, RESUME_META)) result.resume = { value: meta[RESUME_META] };
  return result;
}

function isMetadata(value: unknown): value is Metadata {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The request's headers into `config.configurable` as HTTP runs get them (`configurableFromHeaders`). */
function configFromHeaders(headers: Record<string, string | string[] | undefined> | undefined): RunnableConfig | undefined {
  const entries = Object.entries(headers ?? {}).flatMap(([key, value]): Array<[string, string]> =>
    value === undefined ? [] : [[key, Array.isArray(value) ? value.join(", ") : value]],
  );
  const configurable = configurableFromHeaders(entries);
  return Object.keys(configurable).length > 0 ? { configurable } : undefined;
}
