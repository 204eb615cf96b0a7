import type { LoggedThreadEvent } from "@agent-server/engine";
import { ProtocolError } from "./envelopes.js";
import { AgentGetTreeParams, parseParams } from "./params.js";
import { readableThread, type CommandCaller } from "./thread-reads.js";

type AgentStatus = "started" | "running" | "completed" | "failed" | "interrupted";

interface AgentTreeNode {
  namespace: string[];
  status: AgentStatus;
  graph_name: string;
  children?: AgentTreeNode[];
}

/**
 * `agent.getTree`: the agent tree of a run of the thread (`run_id`, else the latest), built from the
 * `lifecycle` events in the thread's log: each namespace with its latest status and graph name, children
 * under their parents. The log is durable, so any process answers it, after a restart too. Reads the
 * thread's events once: O(events of the thread kept).
 */
export async function agentGetTree(caller: CommandCaller, threadId: string, raw: unknown): Promise<{ tree: AgentTreeNode }> {
  const params = parseParams("agent.getTree", AgentGetTreeParams, raw);
  await readableThread(caller, threadId);
  const { storage, engine } = caller.deps;
  const runId = params.run_id ?? (await storage.runs.search({ thread_id: threadId, limit: 1 }))[0]?.run_id;
  if (!runId || (params.run_id && !(await storage.runs.get(params.run_id, threadId)))) {
    throw new ProtocolError("no_such_run", params.run_id ? `Run "${params.run_id}" not found on this thread` : "The thread has no runs");
  }
  return { tree: buildTree(namespaceStatuses(await engine.threadEvents.list(threadId), runId)) };
}

/** Each namespace's latest lifecycle status in one run, in the order they first appeared. */
export function namespaceStatuses(events: LoggedThreadEvent[], runId: string): Map<string, AgentTreeNode> {
  const nodes = new Map<string, AgentTreeNode>();
  for (const { event, runId: of } of events) {
    if (of !== runId || event.method !== "lifecycle") continue;
    const data = event.params.data as { event?: AgentStatus; graph_name?: string } | null;
    if (!data?.event) continue;
    const namespace = event.params.namespace;
    const key = namespace.join("\u0000");
    const graphName = data.graph_name ?? nodes.get(key)?.graph_name ?? (namespace.at(-1)?.split(":")[0] || "root");
    nodes.set(key, { namespace, status: data.event, graph_name: graphName });
  }
  return nodes;
}

function buildTree(nodes: Map<string, AgentTreeNode>): AgentTreeNode {
  const root: AgentTreeNode = { ...(nodes.get("") ?? { namespace: [], status: "started" as const, graph_name: "root" }) };
  const byKey = new Map<string, AgentTreeNode>([["", root]]);
  const sorted = [...nodes.values()].filter((n) => n.namespace.length > 0).sort((a, b) => a.namespace.length - b.namespace.length);
  for (const node of sorted) {
    const copy: AgentTreeNode = { ...node };
    byKey.set(node.namespace.join("\u0000"), copy);
    // A namespace whose parent never announced itself hangs under the root.
    const parent = byKey.get(node.namespace.slice(0, -1).join("\u0000")) ?? root;
    (parent.children ??= []).push(copy);
  }
  return root;
}
