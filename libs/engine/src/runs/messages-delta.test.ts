import { describe, expect, it } from "vitest";
import type { Storage } from "@agent-server/core";
import { drivers } from "@agent-server/testing";
import type { Engine } from "../engine.js";
import { deltaChatGraph } from "../../test/support/delta-chat-graph.js";
import { newThread, startEngine } from "../../test/support/harness.js";
import { ThreadStateService, type ThreadState } from "../threads/index.js";

type Message = { type?: string; content?: unknown };

/** The messages of a state or run end as [type, content] pairs (wire JSON or message instances). */
function texts(values: unknown): string[] {
  const messages = ((values ?? {}) as { messages?: Message[] }).messages;
  if (!Array.isArray(messages)) throw new Error(`no messages in ${JSON.stringify(values)}`);
  return messages.map((m) => String(m.content));
}

function turn(text: string) {
  return { messages: [{ role: "user", content: text }] };
}

const engineWith = (storage: Storage) => startEngine(storage, {}, { "delta-chat": deltaChatGraph });

/**
 * A graph whose messages are LangGraph 1.7's `MessagesDeltaValue` (a `DeltaChannel`: checkpoints keep each
 * step's new messages only; the list is rebuilt from the ancestors' writes) works like any graph on every
 * driver: turns, the thread's values, state and history, a fork from an older checkpoint, a restart on the
 * same storage, and the result an A2A task renders (recorded at settlement, interrupt included).
 */
describe.each(drivers)("a MessagesDeltaValue graph on $name", (driver) => {
  it("keeps its messages through turns, state, history, a fork, a restart and A2A results", async () => {
    const opened = await driver.open();
    let storage = opened.storage;
    let engine: Engine | undefined = await engineWith(storage);
    try {
      const threadId = await newThread(storage);
      const first = await engine.createRunAndWait({ assistant_id: "delta-chat", input: turn("hello") }, { threadId });
      expect(texts(first.end.values)).toEqual(["hello", "echo: hello", "2 messages"]);
      const second = await engine.createRunAndWait({ assistant_id: "delta-chat", input: turn("again") }, { threadId });
      const twoTurns = ["hello", "echo: hello", "2 messages", "again", "echo: again", "5 messages"];
      expect(texts(second.end.values)).toEqual(twoTurns);
      // The thread row (what GET /threads/{id} answers) has the whole list, not the channel's stored sentinel.
      expect(texts((await storage.threads.get(threadId))?.values)).toEqual(twoTurns);

      const state = new ThreadStateService(storage, engine.registry);
      expect(texts((await state.getState(threadId)).values)).toEqual(twoTurns);
      const history = await state.history(threadId, { limit: 20 });
      // Newest first: every checkpoint's list, rebuilt from its own ancestors.
      expect(history.map((h) => texts(h.values).length)).toEqual([6, 5, 4, 3, 3, 2, 1, 0]);
      const afterFirstTurn = history.find((h) => texts(h.values).length === 3 && h.next.length === 0) as ThreadState;

      // A fork: a run from the checkpoint after the first turn, which the second turn's messages are not part of.
      const forked = await engine.createRunAndWait(
        { assistant_id: "delta-chat", input: turn("branch"), checkpoint_id: afterFirstTurn.checkpoint!.checkpoint_id! },
        { threadId },
      );
      const branch = ["hello", "echo: hello", "2 messages", "branch", "echo: branch", "5 messages"];
      expect(texts(forked.end.values)).toEqual(branch);
      expect(texts((await state.getState(threadId)).values)).toEqual(branch);
      // The older branch is still readable at its own checkpoint.
      expect(texts((await state.getState(threadId, { checkpoint: history[0].checkpoint! })).values)).toEqual(twoTurns);

      // A restart: the storage reopened where the driver can (a new process), a new engine over it.
      await engine.stop(0);
      engine = undefined;
      if (opened.reopen) storage = await opened.reopen();
      engine = await engineWith(storage);
      const reread = new ThreadStateService(storage, engine.registry);
      expect(texts((await reread.getState(threadId)).values)).toEqual(branch);
      expect(texts((await storage.threads.get(threadId))?.values)).toEqual(branch);
      const later = await engine.createRunAndWait({ assistant_id: "delta-chat", input: turn("later") }, { threadId });
      expect(texts(later.end.values)).toEqual([...branch, "later", "echo: later", "8 messages"]);

      // The result an A2A task renders: recorded at settlement (this turn's messages), with its interrupt.
      const capture = { internal: { captureResult: true } };
      const asked = await engine.createRunAndWait({ assistant_id: "delta-chat", input: turn("ask colours") }, { threadId, ...capture });
      const waiting = await storage.runs.getResult!(asked.run.run_id);
      expect(texts(waiting?.values)).toEqual(["ask colours"]);
      expect(waiting?.interrupts).toEqual([expect.objectContaining({ value: { question: "what about?" } })]);
      const answered = await engine.createRunAndWait(
        { assistant_id: "delta-chat", command: { resume: "blue" } },
        { threadId, internal: { captureResult: true, taskId: asked.run.run_id } },
      );
      const done = await storage.runs.getResult!(answered.run.run_id);
      expect(texts(done?.values)).toEqual(["ask colours", "echo: blue", "11 messages"]);
      expect(done?.reply).toBe("11 messages");
      expect(texts((await storage.threads.get(threadId))?.values)).toHaveLength(12);
    } finally {
      await engine?.stop(0);
      await opened.dispose();
    }
  });
});
