/**
 * Regenerates `.langgraph_api/` beside this file: what `@langchain/langgraph-api` (`langgraphjs dev`,
 * in-memory persistence) writes after two runs of the example graphs. Run with
 * `npx tsx apps/server/test/support/langgraph-api-fixture/make-fixture.ts`.
 *
 * Shapes, from langchain-ai/langgraphjs libs/langgraph-api/src/storage/:
 * - persist.mts: each file is `superjson.stringify(data)` with one custom transformer, Uint8Array <-> base64;
 * - ops.mts / types.mts: `.langgraphjs_ops.json` = { runs, threads, assistants, assistant_versions, retry_counter },
 *   dates as Date, thread values as the graph state (LangChain messages serialize through their toJSON);
 * - checkpoint.mts: `.langgraphjs_api.checkpointer.json` = a MemorySaver's { storage, writes }, whose `put`
 *   merges the config's configurable keys (minus checkpoint_ns/checkpoint_id/run_id/thread_id and "__" keys)
 *   and config.metadata under the checkpoint metadata;
 * - store/memory.mts: `.langgraphjs_api.store.json` = an InMemoryStore's { data: Map<ns joined by ":", Map<key, Item>>, vectors }.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { HumanMessage } from "@langchain/core/messages";
import { MemorySaver, type Checkpoint, type CheckpointMetadata } from "@langchain/langgraph";
import { systemAssistantId } from "@agent-server/engine";
import { devSuperJson } from "../../../src/snapshot/superjson.js";
import { graph as approval } from "../../../../../examples/src/approval.js";
import { graph as echo } from "../../../../../examples/src/echo.js";

export const FIXTURE = {
  echoThread: "0b5b1a62-7f0e-4c1a-9f43-1c2d3e4f5a01",
  approvalThread: "0b5b1a62-7f0e-4c1a-9f43-1c2d3e4f5a02",
  echoRun: "1e0c7b2a-3d4e-4f50-8a61-7b8c9d0e1f01",
  approvalRun: "1e0c7b2a-3d4e-4f50-8a61-7b8c9d0e1f02",
  customAssistant: "2a3b4c5d-6e7f-4a8b-9c0d-1e2f3a4b5c01",
  created: new Date("2025-03-01T10:00:00.000Z"),
};

type RunnableConfig = Parameters<MemorySaver["put"]>[0];

/** ops.mts's Assistant (the fields langgraph-api stores). */
interface DevAssistant {
  assistant_id: string;
  graph_id: string;
  name: string | undefined;
  description: string | undefined;
  config: Record<string, unknown>;
  context: unknown;
  metadata: Record<string, unknown>;
  version: number;
  created_at: Date;
  updated_at: Date;
}
const EXCLUDED_KEYS = ["checkpoint_ns", "checkpoint_id", "run_id", "thread_id"];

/** langgraph-api's InMemorySaver.put, without the file persistence. */
class DevSaver extends MemorySaver {
  override async put(config: RunnableConfig, checkpoint: Checkpoint, metadata: CheckpointMetadata): Promise<RunnableConfig> {
    const fromConfig = Object.fromEntries(
      Object.entries(config.configurable ?? {}).filter(([key]) => !key.startsWith("__") && !EXCLUDED_KEYS.includes(key)),
    );
    return super.put(config, checkpoint, { ...fromConfig, ...config.metadata, ...metadata } as CheckpointMetadata);
  }
}

/** As persist.mts writes each file: superjson with its Uint8Array transformer. */
export function superjsonStringify(data: unknown): string {
  return devSuperJson.stringify(data);
}

async function main(): Promise<void> {
  const saver = new DevSaver();
  const echoId = systemAssistantId("echo");
  const approvalId = systemAssistantId("approval");
  const at = (minutes: number) => new Date(FIXTURE.created.getTime() + minutes * 60_000);
  const runConfig = (threadId: string, runId: string, graphId: string, assistantId: string) => ({
    configurable: { thread_id: threadId, run_id: runId, graph_id: graphId, assistant_id: assistantId, user_id: "" },
    metadata: { run_id: runId, thread_id: threadId, graph_id: graphId, assistant_id: assistantId, user_id: "" },
  });

  const echoConfig = runConfig(FIXTURE.echoThread, FIXTURE.echoRun, "echo", echoId);
  const echoInput = { messages: [new HumanMessage("hello from the dev server")] };
  echo.checkpointer = saver;
  await echo.invoke(echoInput, echoConfig);
  const echoState = await echo.getState({ configurable: { thread_id: FIXTURE.echoThread } });

  approval.checkpointer = saver;
  await approval.invoke({ request: "deploy v2" }, runConfig(FIXTURE.approvalThread, FIXTURE.approvalRun, "approval", approvalId));
  const approvalState = await approval.getState({ configurable: { thread_id: FIXTURE.approvalThread } });

  const system = (id: string, graphId: string): DevAssistant => ({
    assistant_id: id,
    graph_id: graphId,
    name: graphId,
    description: undefined,
    config: {},
    context: undefined,
    metadata: { created_by: "system" },
    version: 1,
    created_at: at(0),
    updated_at: at(0),
  });
  const version = (a: DevAssistant, v: number, patch: Record<string, unknown>) => ({
    assistant_id: a.assistant_id,
    version: v,
    graph_id: a.graph_id,
    config: a.config,
    context: a.context,
    metadata: a.metadata,
    created_at: a.created_at,
    name: a.name,
    description: a.description,
    ...patch,
  });
  const custom = {
    ...system(FIXTURE.customAssistant, "echo"),
    name: "polite echo",
    metadata: { team: "docs" },
    config: { configurable: { tone: "polite" } },
  };
  const customV2 = { ...custom, name: "polite echo v2", version: 2, updated_at: at(5) };
  const kwargs = (input: unknown, config: ReturnType<typeof runConfig>) => ({
    input,
    command: undefined,
    stream_mode: ["values"],
    interrupt_before: undefined,
    interrupt_after: undefined,
    config: { configurable: config.configurable },
    context: undefined,
    subgraphs: false,
    resumable: false,
    temporary: false,
    webhook: undefined,
    feedback_keys: undefined,
  });
  const interrupts = Object.fromEntries(approvalState.tasks.filter((t) => t.interrupts.length).map((t) => [t.id, t.interrupts]));
  const ops = {
    runs: {
      [FIXTURE.echoRun]: {
        run_id: FIXTURE.echoRun,
        thread_id: FIXTURE.echoThread,
        assistant_id: echoId,
        created_at: at(1),
        updated_at: at(1),
        status: "success",
        metadata: {},
        kwargs: kwargs(echoInput, echoConfig),
        multitask_strategy: "reject",
      },
      [FIXTURE.approvalRun]: {
        run_id: FIXTURE.approvalRun,
        thread_id: FIXTURE.approvalThread,
        assistant_id: approvalId,
        created_at: at(2),
        updated_at: at(2),
        status: "success",
        metadata: {},
        kwargs: kwargs({ request: "deploy v2" }, runConfig(FIXTURE.approvalThread, FIXTURE.approvalRun, "approval", approvalId)),
        multitask_strategy: "reject",
      },
    },
    threads: {
      [FIXTURE.echoThread]: {
        thread_id: FIXTURE.echoThread,
        created_at: at(1),
        updated_at: at(1),
        metadata: { graph_id: "echo", assistant_id: echoId },
        status: "idle",
        config: {},
        values: echoState.values,
        interrupts: {},
      },
      [FIXTURE.approvalThread]: {
        thread_id: FIXTURE.approvalThread,
        created_at: at(2),
        updated_at: at(2),
        metadata: { graph_id: "approval", assistant_id: approvalId },
        status: "interrupted",
        config: {},
        values: approvalState.values,
        interrupts,
      },
    },
    assistants: { [echoId]: system(echoId, "echo"), [approvalId]: system(approvalId, "approval"), [FIXTURE.customAssistant]: customV2 },
    assistant_versions: [
      version(system(echoId, "echo"), 1, {}),
      version(system(approvalId, "approval"), 1, {}),
      version(custom, 1, {}),
      version(custom, 2, { name: "polite echo v2", created_at: at(5) }),
    ],
    retry_counter: { [FIXTURE.echoRun]: 1, [FIXTURE.approvalRun]: 1 },
  };
  const store = {
    data: new Map([
      [
        "users:u1",
        new Map([["prefs", { value: { theme: "dark" }, key: "prefs", namespace: ["users", "u1"], createdAt: at(3), updatedAt: at(4) }]]),
      ],
    ]),
    vectors: new Map(),
  };

  const dir = fileURLToPath(new URL("./.langgraph_api/", import.meta.url));
  mkdirSync(dir, { recursive: true });
  writeFileSync(`${dir}.langgraphjs_ops.json`, superjsonStringify(ops));
  writeFileSync(`${dir}.langgraphjs_api.checkpointer.json`, superjsonStringify({ storage: saver.storage, writes: saver.writes }));
  writeFileSync(`${dir}.langgraphjs_api.store.json`, superjsonStringify(store));
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main();
