import { BaseCallbackHandler } from "@langchain/core/callbacks/base";
import type { Serialized } from "@langchain/core/load/serializable";
import type { BaseMessage } from "@langchain/core/messages";
import type { LLMResult } from "@langchain/core/outputs";
import type { ChainValues } from "@langchain/core/utils/types";
import { isGraphBubbleUp, isGraphDrained } from "@langchain/langgraph";
import { contextWithSpan, recordError, SpanKind, startSpan, type Attributes, type Context, type Span } from "@agent-server/core";

/**
 * Spans for what a graph does inside a run, from LangChain's callbacks: one per node (`node <name>`),
 * per chat model or LLM call (`chat <model>`, with the GenAI semantic conventions' `gen_ai.*` attributes)
 * and per tool call (`execute_tool <name>`). Other runnables (channel writes, branches, the graph itself)
 * make none; their children hang under the nearest traced ancestor, the run's span at the top.
 */
export class TracingCallbackHandler extends BaseCallbackHandler {
  name = "agent_server_tracing";
  override awaitHandlers = true;
  /** LangChain run id -> its span, or the ancestor span its children go under. Emptied as runs end. */
  private readonly spans = new Map<string, { span: Span | undefined; own: boolean }>();

  constructor(
    private readonly root: Context,
    /** Told when the graph calls a chat model, an LLM or a tool: what only callbacks can see. */
    private readonly onModelOrTool?: () => void,
  ) {
    super();
  }

  // LangChain calls this as (chain, inputs, runId, parentRunId, tags, metadata, runType, runName), while
  // its declaration says (chain, inputs, runId, runType, tags, metadata, runName, parentRunId): the parent
  // and the name are read from either place.
  override handleChainStart(_chain: Serialized, _inputs: ChainValues, runId: string, ...rest: unknown[]): void {
    const metadata = rest[2] as Record<string, unknown> | undefined;
    const parentRunId = [rest[0], rest[4]].find((value): value is string => typeof value === "string" && this.spans.has(value));
    const node = metadata?.langgraph_node;
    const parent = this.parentSpan(parentRunId);
    const hidden = (rest[1] as string[] | undefined)?.includes("langsmith:hidden") === true;
    const isNode = typeof node === "string" && !hidden && parentRunId !== undefined && (rest[3] === node || rest[4] === node);
    if (!isNode) {
      this.spans.set(runId, { span: parent, own: false });
      return;
    }
    const attributes: Attributes = { "langgraph.node": node };
    if (typeof metadata?.langgraph_step === "number") attributes["langgraph.step"] = metadata.langgraph_step;
    if (typeof metadata?.checkpoint_ns === "string" && metadata.checkpoint_ns.includes("|")) {
      attributes["langgraph.checkpoint_ns"] = metadata.checkpoint_ns;
    }
    this.open(runId, `node ${node}`, SpanKind.INTERNAL, attributes, parent);
  }

  override handleChainEnd(_outputs: ChainValues, runId: string): void {
    this.close(runId);
  }

  override handleChainError(error: Error, runId: string): void {
    this.close(runId, error);
  }

  override handleChatModelStart(
    llm: Serialized,
    _messages: BaseMessage[][],
    runId: string,
    parentRunId?: string,
    extraParams?: Record<string, unknown>,
    _tags?: string[],
    metadata?: Record<string, unknown>,
  ): void {
    this.startModel("chat", llm, runId, parentRunId, extraParams, metadata);
  }

  override handleLLMStart(
    llm: Serialized,
    _prompts: string[],
    runId: string,
    parentRunId?: string,
    extraParams?: Record<string, unknown>,
    _tags?: string[],
    metadata?: Record<string, unknown>,
  ): void {
    // A chat model reports through handleChatModelStart; this is a text-completion LLM.
    if (this.spans.has(runId)) return;
    this.startModel("text_completion", llm, runId, parentRunId, extraParams, metadata);
  }

  override handleLLMEnd(output: LLMResult, runId: string): void {
    const entry = this.spans.get(runId);
    if (entry?.own && entry.span) entry.span.setAttributes(usageAttributes(output));
    this.close(runId);
  }

  override handleLLMError(error: Error, runId: string): void {
    this.close(runId, error);
  }

  override handleToolStart(
    _tool: Serialized,
    _input: string,
    runId: string,
    parentRunId?: string,
    _tags?: string[],
    _metadata?: Record<string, unknown>,
    runName?: string,
    toolCallId?: string,
  ): void {
    const name = runName ?? "tool";
    this.onModelOrTool?.();
    this.open(
      runId,
      `execute_tool ${name}`,
      SpanKind.INTERNAL,
      { "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": name, ...(toolCallId ? { "gen_ai.tool.call.id": toolCallId } : {}) },
      this.parentSpan(parentRunId),
    );
  }

  override handleToolEnd(_output: unknown, runId: string): void {
    this.close(runId);
  }

  override handleToolError(error: Error, runId: string): void {
    this.close(runId, error);
  }

  private startModel(
    operation: "chat" | "text_completion",
    llm: Serialized,
    runId: string,
    parentRunId: string | undefined,
    extraParams: Record<string, unknown> | undefined,
    metadata: Record<string, unknown> | undefined,
  ): void {
    this.onModelOrTool?.();
    const invocation = (extraParams?.invocation_params ?? {}) as Record<string, unknown>;
    const model = firstString(metadata?.ls_model_name, invocation.model, invocation.model_name, invocation.modelName);
    const provider = firstString(metadata?.ls_provider) ?? llm.id?.at(-1);
    const attributes: Attributes = { "gen_ai.operation.name": operation };
    if (provider) {
      attributes["gen_ai.provider.name"] = provider;
      attributes["gen_ai.system"] = provider;
    }
    if (model) attributes["gen_ai.request.model"] = model;
    const temperature = firstNumber(metadata?.ls_temperature, invocation.temperature);
    if (temperature !== undefined) attributes["gen_ai.request.temperature"] = temperature;
    const maxTokens = firstNumber(metadata?.ls_max_tokens, invocation.max_tokens, invocation.maxTokens);
    if (maxTokens !== undefined) attributes["gen_ai.request.max_tokens"] = maxTokens;
    this.open(runId, model ? `${operation} ${model}` : operation, SpanKind.CLIENT, attributes, this.parentSpan(parentRunId));
  }

  private parentSpan(parentRunId: string | undefined): Span | undefined {
    return parentRunId === undefined ? undefined : this.spans.get(parentRunId)?.span;
  }

  private open(runId: string, name: string, kind: SpanKind, attributes: Attributes, parent: Span | undefined): void {
    const context = parent ? withParent(this.root, parent) : this.root;
    this.spans.set(runId, { span: startSpan(name, { kind, attributes }, context), own: true });
  }

  private close(runId: string, error?: unknown): void {
    const entry = this.spans.get(runId);
    if (!entry) return;
    this.spans.delete(runId);
    if (!entry.own || !entry.span) return;
    if (error !== undefined && !isGraphControlFlow(error)) recordError(entry.span, error);
    entry.span.end();
  }
}

function withParent(root: Context, parent: Span): Context {
  return contextWithSpan(parent, root);
}

/** An interrupt (or a drain) ends a node by throwing, by design: not a failure. */
function isGraphControlFlow(error: unknown): boolean {
  return isGraphBubbleUp(error) || isGraphDrained(error);
}

/** Token usage and the answering model, from the message's `usage_metadata` or the LLM output's `tokenUsage`. */
function usageAttributes(output: LLMResult): Attributes {
  const attributes: Attributes = {};
  const generation = output.generations?.[0]?.[0] as
    | {
        message?: { usage_metadata?: { input_tokens?: number; output_tokens?: number }; response_metadata?: Record<string, unknown> };
        generationInfo?: Record<string, unknown>;
      }
    | undefined;
  const usage = generation?.message?.usage_metadata;
  const tokenUsage = output.llmOutput?.tokenUsage as { promptTokens?: number; completionTokens?: number } | undefined;
  const input = firstNumber(usage?.input_tokens, tokenUsage?.promptTokens);
  const outputTokens = firstNumber(usage?.output_tokens, tokenUsage?.completionTokens);
  if (input !== undefined) attributes["gen_ai.usage.input_tokens"] = input;
  if (outputTokens !== undefined) attributes["gen_ai.usage.output_tokens"] = outputTokens;
  const meta = generation?.message?.response_metadata;
  const model = firstString(meta?.model_name, meta?.model);
  if (model) attributes["gen_ai.response.model"] = model;
  const finish = firstString(meta?.finish_reason, meta?.stop_reason, generation?.generationInfo?.finish_reason);
  if (finish) attributes["gen_ai.response.finish_reasons"] = [finish];
  return attributes;
}

function firstString(...values: unknown[]): string | undefined {
  for (const value of values) if (typeof value === "string" && value !== "") return value;
  return undefined;
}

function firstNumber(...values: unknown[]): number | undefined {
  for (const value of values) if (typeof value === "number" && Number.isFinite(value)) return value;
  return undefined;
}
