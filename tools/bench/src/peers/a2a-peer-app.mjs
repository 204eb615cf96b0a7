// What both A2A peers share: an echo agent's card, the @a2a-js/sdk's DefaultRequestHandler over an
// InMemoryTaskStore behind express (JSON-RPC and HTTP+JSON), and the events that end a task with its answer.
// Copied beside each peer's server script into its peer install, so it resolves that install's SDK and express.
import { randomUUID } from "node:crypto";
import express from "express";
import { AGENT_CARD_PATH, Role, TaskState } from "@a2a-js/sdk";
import { AgentEvent, DefaultRequestHandler, InMemoryTaskStore } from "@a2a-js/sdk/server";
import { agentCardHandler, jsonRpcHandler, restHandler, UserBuilder } from "@a2a-js/sdk/server/express";

export const textPart = (text) => ({ content: { $case: "text", value: text }, metadata: undefined, filename: "", mediaType: "text/plain" });
export const status = (state, message = undefined) => ({ state, timestamp: new Date().toISOString(), message });

/** The user message's text. */
export function textOf(userMessage) {
  return userMessage.parts.map((part) => (part.content?.$case === "text" ? part.content.value : "")).join("");
}

/** A new task, SUBMITTED, when the request does not continue one. */
export function publishSubmitted(context, eventBus) {
  if (context.task) return;
  const { taskId, contextId, userMessage } = context;
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

/** The answer as the task's artifact, then COMPLETED with the answer as its status message (unless `statusMessage` is false). */
export function publishAnswer(context, eventBus, answer, { statusMessage = true } = {}) {
  const { taskId, contextId } = context;
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
  const final = status(TaskState.TASK_STATE_COMPLETED, statusMessage ? reply : undefined);
  eventBus.publish(AgentEvent.statusUpdate({ taskId, contextId, status: final, metadata: undefined }));
}

/** Serves `executor` on loopback at `port` (0: a free one), prints "listening on <url>", and exits on SIGINT/SIGTERM. */
export function serveA2A(executor, port = 0) {
  const app = express();
  const server = app.listen(port, "127.0.0.1", () => {
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
    const requestHandler = new DefaultRequestHandler(card, new InMemoryTaskStore(), executor);
    app.use(`/${AGENT_CARD_PATH}`, agentCardHandler({ agentCardProvider: requestHandler }));
    app.use("/a2a/jsonrpc", jsonRpcHandler({ requestHandler, userBuilder: UserBuilder.noAuthentication }));
    app.use("/a2a/rest", restHandler({ requestHandler, userBuilder: UserBuilder.noAuthentication }));
    console.log(`listening on ${url}`);
  });
  for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => server.close(() => process.exit(0)));
}
