import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Annotation, StateGraph } from "@langchain/langgraph";
import { ConflictError, InvalidInputError, NotFoundError, toWireJson, type Storage } from "@agent-server/core";
import { drivers } from "@agent-server/testing";
import type { Engine } from "../engine.js";
import { approvalGraph } from "../../test/support/graphs.js";
import { eventually, newThread, startEngine } from "../../test/support/harness.js";
import { ThreadStateService } from "./thread-state-service.js";

type Message = { type: string; content: string };

/** The approval graph as a subgraph node, so an interrupt happens one namespace down. */
const nestedGraph = new StateGraph(Annotation.Root({ request: Annotation<string>(), decision: Annotation<string>() }))
  .addNode("child", approvalGraph)
  .addEdge("__start__", "child")
  .compile();

describe.each(drivers.filter((d) => d.name !== "postgres"))("ThreadStateService on $name", (driver) => {
  let storage: Storage;
  let engine: Engine;
  let service: ThreadStateService;
  let dispose: () => Promise<void>;

  beforeEach(async () => {
    const opened = await driver.open();
    storage = opened.storage;
    dispose = opened.dispose;
    engine = await startEngine(storage);
    engine.registry.register("nested", nestedGraph);
    await engine.registry.ensureSystemAssistants(storage);
    service = new ThreadStateService(storage, engine.registry);
  });

  afterEach(async () => {
    await engine.stop(0);
    await dispose();
  });

  async function run(threadId: string, assistant: string, input: unknown, command?: { resume: unknown }) {
    const { end } = await engine.createRunAndWait({ assistant_id: assistant, input, command }, { threadId });
    expect(end.status).toBe("success");
  }

  const say = (content: string) => ({ messages: [{ role: "user", content }] });

  it("reports the empty state and no current checkpoint before any run, and 404s unknown threads", async () => {
    const threadId = await newThread(storage);
    expect(await service.getState(threadId)).toEqual({
      values: {},
      next: [],
      checkpoint: null,
      metadata: null,
      created_at: null,
      parent_checkpoint: null,
      tasks: [],
      interrupts: [],
    });
    expect(await service.history(threadId)).toEqual([]);
    expect(await service.currentCheckpoint(threadId)).toBeNull();
    const unknown = crypto.randomUUID();
    await expect(service.getState(unknown)).rejects.toThrow(NotFoundError);
    await expect(service.currentCheckpoint(unknown)).rejects.toThrow(NotFoundError);
  });

  it("projects the latest state, its checkpoint, and a history paged with before", async () => {
    const threadId = await newThread(storage);
    await run(threadId, "echo", say("one"));
    await run(threadId, "echo", say("two"));
    const state = await service.getState(threadId);
    const messages = (toWireJson(state.values) as { messages: Message[] }).messages;
    expect(messages.map((m) => m.content)).toEqual(["one", "echo: one", "two", "echo: two"]);
    expect(state.next).toEqual([]);
    expect(state.checkpoint).toMatchObject({ thread_id: threadId, checkpoint_ns: "", checkpoint_id: expect.any(String) });
    expect(state.parent_checkpoint?.checkpoint_id).toEqual(expect.any(String));
    expect(state.metadata).toMatchObject({ source: "loop" });
    expect(state.metadata).not.toHaveProperty("checkpoint_ns");
    expect(typeof state.created_at).toBe("string");

    // The A2A adapter compares a run's recorded checkpoint with this: both name the same checkpoint.
    expect(await service.currentCheckpoint(threadId)).toEqual({
      thread_id: threadId,
      checkpoint_ns: "",
      checkpoint_id: state.checkpoint!.checkpoint_id,
    });

    const all = await service.history(threadId, { limit: 100 });
    expect(all[0].checkpoint).toEqual(state.checkpoint);
    expect(all.length).toBeGreaterThanOrEqual(6);
    const page = await service.history(threadId, { limit: 2, before: all[1].checkpoint!.checkpoint_id! });
    expect(page.map((s) => s.checkpoint?.checkpoint_id)).toEqual([all[2].checkpoint?.checkpoint_id, all[3].checkpoint?.checkpoint_id]);
    const inputs = await service.history(threadId, { limit: 100, metadata: { source: "input" } });
    expect(inputs.length).toBe(2);

    const past = await service.getState(threadId, { checkpoint: { checkpoint_id: all[2].checkpoint!.checkpoint_id } });
    expect(past.checkpoint).toEqual(all[2].checkpoint);
    await expect(service.getState(threadId, { checkpoint: { checkpoint_id: crypto.randomUUID() } })).rejects.toThrow(NotFoundError);
  });

  it("shows an interrupted thread's task interrupts, and updates state as a node", async () => {
    const threadId = await newThread(storage);
    await run(threadId, "approval", { request: "deploy" });
    const state = await service.getState(threadId);
    expect(state.next).toEqual(["ask"]);
    expect(state.tasks).toHaveLength(1);
    expect(state.tasks[0]).toMatchObject({ name: "ask", error: null, interrupts: [{ value: { question: "approve deploy?" } }] });
    expect(state.interrupts).toEqual(state.tasks[0].interrupts);

    // Writing as "ask" completes the pending task: nothing is left to run and the row stops waiting.
    const { checkpoint } = await service.updateState(threadId, { values: { decision: "manual" }, asNode: "ask" });
    expect(checkpoint).toMatchObject({ thread_id: threadId, checkpoint_ns: "", checkpoint_id: expect.any(String) });
    const after = await service.getState(threadId);
    expect(after.checkpoint?.checkpoint_id).toBe(checkpoint.checkpoint_id);
    expect(after).toMatchObject({ values: { request: "deploy", decision: "manual" }, next: [], interrupts: [] });
    expect(await storage.threads.get(threadId)).toMatchObject({ status: "idle", interrupts: {}, values: { decision: "manual" } });
  });

  it("applies supersteps and continues a run from an update made as __start__", async () => {
    const thread = await storage.threads.create({ thread_id: crypto.randomUUID(), metadata: { graph_id: "approval" } });
    await service.bulkUpdate(thread.thread_id, [{ updates: [{ values: { request: "budget" }, as_node: "__start__" }] }]);
    expect(await service.getState(thread.thread_id)).toMatchObject({ values: { request: "budget" }, next: ["ask"] });
    await run(thread.thread_id, "approval", null);
    const state = await service.getState(thread.thread_id);
    expect(state.interrupts).toMatchObject([{ value: { question: "approve budget?" } }]);
    await run(thread.thread_id, "approval", undefined, { resume: "yes" });
    expect((await service.getState(thread.thread_id)).values).toEqual({ request: "budget", decision: "yes" });
  });

  it("forks from an older checkpoint, and refuses bad updates, graphless threads and busy threads", async () => {
    const threadId = await newThread(storage);
    await run(threadId, "echo", say("one"));
    const history = await service.history(threadId);
    const input = history.find((s) => s.metadata?.source === "input")!;
    const fork = await service.updateState(threadId, {
      values: { messages: [{ role: "user", content: "forked" }] },
      asNode: "__start__",
      checkpoint: { checkpoint_id: input.checkpoint!.checkpoint_id },
    });
    const forked = await service.getState(threadId);
    expect(forked.checkpoint?.checkpoint_id).toBe(fork.checkpoint.checkpoint_id);
    expect(forked.parent_checkpoint?.checkpoint_id).toBe(input.checkpoint!.checkpoint_id);
    expect(forked.next).toEqual(["echo"]);

    await expect(service.updateState(threadId, { values: { messages: [] }, asNode: "nope" })).rejects.toThrow(InvalidInputError);
    await expect(service.updateState(threadId, { values: {}, checkpoint: { checkpoint_id: crypto.randomUUID() } })).rejects.toThrow(
      NotFoundError,
    );
    const graphless = await newThread(storage);
    await expect(service.updateState(graphless, { values: {} })).rejects.toThrow(InvalidInputError);

    const slow = await newThread(storage);
    const pending = await engine.createRun({ assistant_id: "slow", input: { delayMs: 400 } }, { threadId: slow });
    await eventually(async () => (await storage.runs.get(pending.run_id))?.status === "running");
    await expect(service.updateState(slow, { values: { steps: [9] }, asNode: "first" })).rejects.toThrow(ConflictError);
    expect((await engine.waitRun(pending.run_id)).status).toBe("success");
    await service.updateState(slow, { values: { steps: [9] }, asNode: "second" });
    expect((await service.getState(slow)).values).toMatchObject({ steps: [1, 2, 9] });
  });

  it("projects a subgraph task as a checkpoint pointer, or as its own state with subgraphs", async () => {
    const threadId = await newThread(storage);
    await run(threadId, "nested", { request: "merge" });
    const shallow = await service.getState(threadId);
    expect(shallow.next).toEqual(["child"]);
    const [task] = shallow.tasks;
    // The namespace only, as the official server reports it: no checkpoint id or map until LangGraph has one.
    expect(task).toMatchObject({ name: "child", state: null });
    expect(task.checkpoint).toEqual({ thread_id: threadId, checkpoint_ns: expect.stringMatching(/^child:/) });

    const deep = await service.getState(threadId, { subgraphs: true });
    expect(deep.tasks[0].checkpoint).toBeNull();
    expect(deep.tasks[0].state).toMatchObject({ next: ["ask"], values: { request: "merge" } });
    expect(deep.tasks[0].state?.tasks[0].interrupts).toMatchObject([{ value: { question: "approve merge?" } }]);
    expect(deep.tasks[0].state?.checkpoint?.checkpoint_ns).toBe(task.checkpoint?.checkpoint_ns);
    // A nested state has no `interrupts` list of its own (its tasks carry them), as on the official server.
    expect(deep.tasks[0].state).not.toHaveProperty("interrupts");

    // The subgraph's namespace can be read directly too.
    const child = await service.getState(threadId, { checkpoint: { checkpoint_ns: task.checkpoint!.checkpoint_ns } });
    expect(child.next).toEqual(["ask"]);
    expect(await service.currentCheckpoint(threadId)).toEqual({
      thread_id: threadId,
      checkpoint_ns: "",
      checkpoint_id: shallow.checkpoint!.checkpoint_id,
    });
  });

  it("projects from the graph the thread ran, whatever became of the assistant or the runs", async () => {
    const helper = await storage.assistants.create({ assistant_id: crypto.randomUUID(), graph_id: "echo" });
    const contents = async (threadId: string) =>
      ((toWireJson((await service.getState(threadId)).values) as { messages?: Message[] }).messages ?? []).map((m) => m.content);

    // Repointed at another graph: the checkpoints were written by echo, and echo still reads them.
    const repointed = await newThread(storage);
    await run(repointed, helper.assistant_id, say("one"));
    await storage.assistants.update(helper.assistant_id, { graph_id: "approval" });
    expect(await contents(repointed)).toEqual(["one", "echo: one"]);

    // Deleted: its runs stay and name the graph they ran.
    await storage.assistants.delete(helper.assistant_id);
    expect(await contents(repointed)).toEqual(["one", "echo: one"]);
    expect((await service.history(repointed)).length).toBeGreaterThan(1);

    // No run left at all (deleted one by one), no graph in the thread's metadata: the latest checkpoint names its graph.
    const orphan = await newThread(storage);
    await run(orphan, "echo", say("two"));
    for (const { run_id } of await storage.runs.search({ thread_id: orphan })) await storage.runs.delete(run_id);
    expect(await contents(orphan)).toEqual(["two", "echo: two"]);
    const history = await service.history(orphan);
    expect(history.length).toBeGreaterThan(1);
    expect(history[0].checkpoint).toEqual((await service.getState(orphan)).checkpoint);
    // And it can be written to again through that graph.
    await service.updateState(orphan, { values: { messages: [{ role: "user", content: "three" }] }, asNode: "echo" });
    expect(await contents(orphan)).toEqual(["two", "echo: two", "three"]);
  });
});
