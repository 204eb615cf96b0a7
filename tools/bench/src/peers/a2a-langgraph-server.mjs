// What a team would build instead of our server: the @a2a-js/sdk server (DefaultRequestHandler over an
// InMemoryTaskStore, behind express) whose AgentExecutor invokes the LangGraph echo graph with one of
// LangGraph's own checkpointers, the A2A context id as the thread id. The executor follows the SDK's
// sample-agent: the task (submitted), working, the answer as an artifact, completed.
// JavaScript, copied with echo.ts into the peer install (tools/bench/.peers/a2a-langgraph) and run there with
// `node --import tsx` (tsx loads echo.ts as it is), so it resolves that install's packages, not the repository's.
//
//   node --import tsx a2a-langgraph-server.mjs sqlite <file>
//   node --import tsx a2a-langgraph-server.mjs postgres <url> <schema>
// Listens on a free loopback port and prints "listening on <url>".
import { randomUUID } from "node:crypto";
import express from "express";
import { AGENT_CARD_PATH, Role, TaskState } from "@a2a-js/sdk";
import { AgentEvent, DefaultRequestHandler, InMemoryTaskStore } from "@a2a-js/sdk/server";
import { agentCardHandler, jsonRpcHandler, restHandler, UserBuilder } from "@a2a-js/sdk/server/express";
import { graph } from "./echo.ts";

const [kind, ...where] = process.argv.slice(2);

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
  throw new Error(`usage: a2a-langgraph-server.mjs sqlite <file> | postgres <url> <schema>; got '${kind}'`);
}

const textPart = (text) => ({ content: { $case: "text", value: text }, metadata: undefined, filename: "", mediaType: "text/plain" });
const status = (state, message = undefined) => ({ state, timestamp: new Date().toISOString(), message });

class LangGraphExecutor {
  constructor(agent) {
    this.agent = agent;
  }

  async execute(context, eventBus) {
    const { taskId, contextId, userMessage } = context;
    if (!context.task) {
      eventBus.publish(
        AgentEvent.task({
          id: taskId,
          contextId,
          status: status(TaskState.TASK_STATE_SUBMITTED),
          artifacts: [],
          history: [userMessage],
          metadata: undefined,
        }),
      );
    }
    eventBus.publish(AgentEvent.statusUpdate({ taskId, contextId, status: status(TaskState.TASK_STATE_WORKING), metadata: undefined }));

    // One LangGraph thread per A2A context: a later message in the same context continues the conversation.
    const text = userMessage.parts.map((part) => (part.content?.$case === "text" ? part.content.value : "")).join("");
    const state = await this.agent.invoke({ messages: [{ role: "user", content: text }] }, { configurable: { thread_id: contextId } });
    const answer = String(state.messages.at(-1)?.content ?? "");

    eventBus.publish(
      AgentEvent.artifactUpdate({
        taskId,
        contextId,
        artifact: {
          artifactId: randomUUID(),
          name: "reply",
          description: "",
          parts: [textPart(answer)],
          metadata: undefined,
          extensions: [],
        },
        lastChunk: true,
        append: false,
        metadata: undefined,
      }),
    );
    const reply = {
      role: Role.ROLE_AGENT,
      messageId: randomUUID(),
      parts: [textPart(answer)],
      taskId,
      contextId,
      extensions: [],
      metadata: undefined,
      referenceTaskIds: [],
    };
    eventBus.publish(
      AgentEvent.statusUpdate({ taskId, contextId, status: status(TaskState.TASK_STATE_COMPLETED, reply), metadata: undefined }),
    );
  }

  async cancelTask() {}
}

const agent = graph.builder.compile({ checkpointer: await openCheckpointer() });
const app = express();
const server = app.listen(0, "127.0.0.1", () => {
  const url = `http://127.0.0.1:${server.address().port}`;
  const card = {
    name: "echo",
    description: "Replies with echo: <text>",
    supportedInterfaces: [
      { url: `${url}/a2a/jsonrpc`, protocolBinding: "JSONRPC", tenant: "", protocolVersion: "1.0" },
      { url: `${url}/a2a/rest`, protocolBinding: "HTTP+JSON", tenant: "", protocolVersion: "1.0" },
    ],
    version: "1.0.0",
    capabilities: { streaming: true, pushNotifications: false, extensions: [], extendedAgentCard: false },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ["text"],
    defaultOutputModes: ["text"],
    skills: [],
    documentationUrl: "",
    signatures: [],
  };
  const requestHandler = new DefaultRequestHandler(card, new InMemoryTaskStore(), new LangGraphExecutor(agent));
  app.use(`/${AGENT_CARD_PATH}`, agentCardHandler({ agentCardProvider: requestHandler }));
  app.use("/a2a/jsonrpc", jsonRpcHandler({ requestHandler, userBuilder: UserBuilder.noAuthentication }));
  app.use("/a2a/rest", restHandler({ requestHandler, userBuilder: UserBuilder.noAuthentication }));
  console.log(`listening on ${url}`);
});
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => server.close(() => process.exit(0)));
