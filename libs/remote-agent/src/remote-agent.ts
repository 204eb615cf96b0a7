import type { AgentCard } from "@a2a-js/sdk";
import { AIMessage, ToolMessage } from "@langchain/core/messages";
import { tool, type StructuredToolInterface } from "@langchain/core/tools";
import { getCurrentTaskInput, type LangGraphRunnableConfig } from "@langchain/langgraph";
import { v5 as uuidv5 } from "uuid";
import { RemoteConnection } from "./connection.js";
import { contentParts } from "./content.js";
import { durableCall, type RemoteRecord } from "./durable-call.js";
import { RemoteAgentError } from "./errors.js";
import { resolveOptions, type RemoteAgentOptions } from "./options.js";

/** A remote A2A agent as parts of a graph: a node, a tool, and its card once read. */
export interface RemoteAgent {
  /**
   * A node for a graph with a messages channel (`MessagesAnnotation`, `MessagesValue`,
   * `MessagesDeltaValue`): sends the last human message and appends the agent's answer as an AI message.
   */
  node: (state: Record<string, unknown>, config?: LangGraphRunnableConfig) => Promise<Record<string, unknown>>;
  /** A tool taking `{ message }` for a model to call; named and described by the options (or the URL). */
  tool: StructuredToolInterface;
  /** The tool named and described from the agent's card (its name, description and skills); reads the card. */
  describedTool(): Promise<StructuredToolInterface>;
  /** The agent's card, read on the first call (or by `describedTool`). */
  card(): AgentCard | undefined;
}

/** The namespace of answer message ids (UUID v5 of the remote task): a replayed answer replaces itself. */
const ANSWER_ID_NAMESPACE = "b8d1a9e4-3c55-4f0e-8a61-2d7f9b3e6c10";

/**
 * A remote A2A agent for a LangGraph graph (see docs/a2a.md, "Calling other agents"). Nothing is
 * fetched until the first call: the card is read then, and it decides the binding.
 */
export function remoteAgent(options: RemoteAgentOptions): RemoteAgent {
  const resolved = resolveOptions(options);
  const connection = new RemoteConnection(resolved);
  const key = resolved.messagesKey;

  const node = async (state: Record<string, unknown>, config?: LangGraphRunnableConfig): Promise<Record<string, unknown>> => {
    const messages = asList(state?.[key]);
    const last = [...messages].reverse().find((m) => roleOf(m) === "human");
    if (!last) throw new RemoteAgentError(connection, `the state's "${key}" holds no human message to send`);
    const nodeName = (config?.metadata as { langgraph_node?: string } | undefined)?.langgraph_node;
    const contextId = previousContext(messages, resolved.url);
    const { sent, outcome } = await durableCall(
      connection,
      {
        parts: contentParts((last as { content?: unknown }).content),
        ...(contextId ? { contextId } : {}),
        ...(nodeName ? { node: nodeName } : {}),
      },
      config,
    );
    const record = recordOf(resolved.url, sent, outcome.state);
    const answer = new AIMessage({
      id: uuidv5(`${sent.url}|${sent.taskId || sent.messageId}`, ANSWER_ID_NAMESPACE),
      content: outcome.text,
      name: toolName(connection.agentName()),
      response_metadata: { a2a: record },
    });
    return { [key]: [answer] };
  };

  const makeTool = (name: string, description: string): StructuredToolInterface =>
    tool(
      async (input: { message: string }, runtime: unknown) => {
        const config = runtime as LangGraphRunnableConfig & { toolCall?: { id?: string } };
        const callId = config?.toolCall?.id;
        const contextId = previousContext(asList(currentState()?.[key]), resolved.url);
        const { sent, outcome } = await durableCall(
          connection,
          { parts: [{ text: input.message }], ...(contextId ? { contextId } : {}), ...(callId ? { key: callId } : {}), node: name },
          config,
        );
        if (!callId) return outcome.text;
        return new ToolMessage({
          content: outcome.text,
          tool_call_id: callId,
          name,
          artifact: { a2a: recordOf(resolved.url, sent, outcome.state) },
        });
      },
      {
        name,
        description,
        schema: {
          type: "object",
          properties: { message: { type: "string", description: "The message to send to the agent, in plain language" } },
          required: ["message"],
        },
      },
    ) as unknown as StructuredToolInterface;

  const fallbackName = toolName(resolved.name ?? lastPathSegment(resolved.url));
  return {
    node,
    tool: makeTool(fallbackName, resolved.description ?? `Sends a message to the A2A agent at ${resolved.url} and answers with its reply.`),
    async describedTool() {
      const { card } = await connection.client();
      return makeTool(toolName(resolved.name ?? card.name), resolved.description ?? describeCard(card));
    },
    card: () => connection.card(),
  };
}

function recordOf(agent: string, sent: { url: string; taskId: string; contextId: string }, state: string): RemoteRecord {
  return { agent, url: sent.url, taskId: sent.taskId, contextId: sent.contextId, state };
}

/**
 * The remote context this conversation already has with `agent`: the latest answer from it (an AI
 * message or a tool result) says it. One remote context per local thread, and a fork keeps its own.
 */
function previousContext(messages: unknown[], agent: string): string | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i] as { response_metadata?: { a2a?: RemoteRecord }; artifact?: { a2a?: RemoteRecord } } | undefined;
    const record = m?.response_metadata?.a2a ?? m?.artifact?.a2a;
    if (record?.agent === agent && record.contextId) return record.contextId;
  }
  return undefined;
}

function currentState(): Record<string, unknown> | undefined {
  try {
    return getCurrentTaskInput() as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

function asList(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

/** A message's role, for LangChain message objects and for the plain `{ role }` form alike. */
function roleOf(message: unknown): string | undefined {
  const m = message as { getType?: () => string; _getType?: () => string; type?: string; role?: string } | undefined;
  const type = m?.getType?.() ?? m?._getType?.() ?? m?.type ?? m?.role;
  return type === "user" ? "human" : type;
}

function lastPathSegment(url: string): string {
  return (
    url
      .split("/")
      .filter(Boolean)
      .at(-1)
      ?.replace(/\.json$/, "") ?? "agent"
  );
}

/** A name a model provider accepts for a tool or a message author: `[a-zA-Z0-9_-]`, at most 64. */
function toolName(name: string): string {
  const slug = name
    .replace(/[^a-zA-Z0-9_-]+/g, "_")
    .replace(/^_+|_+$/g, "")
    .slice(0, 64);
  return slug || "remote_agent";
}

function describeCard(card: AgentCard): string {
  const skills = card.skills.map((s) => `- ${s.name}${s.description ? `: ${s.description}` : ""}`);
  return [card.description || `The A2A agent "${card.name}".`, ...(skills.length ? ["Skills:", ...skills] : [])].join("\n");
}
