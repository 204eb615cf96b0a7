// What a team would build instead of our server: the @a2a-js/sdk server (DefaultRequestHandler over an
// InMemoryTaskStore, behind express) whose AgentExecutor invokes the LangGraph echo graph with one of
// LangGraph's own checkpointers, the A2A context id as the thread id. The executor follows the SDK's
// sample-agent: the task (submitted), working, the answer as an artifact, completed.
// The lean variant (--lean) is the least such a server can do: no WORKING update and no status message, the
// task ends with its artifact and COMPLETED.
// JavaScript, copied with echo.ts and a2a-peer-app.mjs into the peer install (tools/bench/.peers/a2a-langgraph) and run there with
// `node --import tsx` (tsx loads echo.ts as it is), so it resolves that install's packages, not the repository's.
//
//   node --import tsx a2a-langgraph-server.mjs [--lean] sqlite <file>
//   node --import tsx a2a-langgraph-server.mjs [--lean] postgres <url> <schema>
// Listens on a free loopback port and prints "listening on <url>".
import { TaskState } from "@a2a-js/sdk";
import { AgentEvent } from "@a2a-js/sdk/server";
import { publishAnswer, publishSubmitted, serveA2A, status, textOf } from "./a2a-peer-app.mjs";
import { graph } from "./echo.ts";

const argv = process.argv.slice(2);
const lean = argv[0] === "--lean";
const [kind, ...where] = lean ? argv.slice(1) : argv;

/** LangGraph's saver as its docs set it up: SqliteSaver on a file, or PostgresSaver in its own schema (setup() migrates). */
async function openCheckpointer() {
  if (kind === "sqlite") {
    const { SqliteSaver } = await import("@langchain/langgraph-checkpoint-sqlite");
    return SqliteSaver.fromConnString(where[0]);
  }
  if (kind === "postgres") {
    const { PostgresSaver } = await import("@langchain/langgraph-checkpoint-postgres");
    const saver = PostgresSaver.fromConnString(where[0], { schema: where[1] });
    await saver.setup();
    return saver;
  }
  throw new Error(`usage: a2a-langgraph-server.mjs [--lean] sqlite <file> | postgres <url> <schema>; got '${kind}'`);
}

class LangGraphExecutor {
  constructor(agent) {
    this.agent = agent;
  }

  async execute(context, eventBus) {
    const { taskId, contextId, userMessage } = context;
    publishSubmitted(context, eventBus);
    if (!lean) {
      eventBus.publish(AgentEvent.statusUpdate({ taskId, contextId, status: status(TaskState.TASK_STATE_WORKING), metadata: undefined }));
    }
    // One LangGraph thread per A2A context: a later message in the same context continues the conversation.
    const state = await this.agent.invoke(
      { messages: [{ role: "user", content: textOf(userMessage) }] },
      { configurable: { thread_id: contextId } },
    );
    publishAnswer(context, eventBus, String(state.messages.at(-1)?.content ?? ""), { statusMessage: !lean });
  }

  async cancelTask() {}
}

serveA2A(new LangGraphExecutor(graph.builder.compile({ checkpointer: await openCheckpointer() })));
