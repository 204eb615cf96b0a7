// The @a2a-js/sdk reference server the bench compares our A2A adapter with: the SDK's own
// DefaultRequestHandler over an InMemoryTaskStore, behind express, with an echo AgentExecutor.
// JavaScript, not TypeScript: it is copied into the peer install (tools/bench/.peers/a2a-reference) and run
// there with plain node, so it resolves that install's express and SDK, not the repository's.
//
//   node a2a-reference-server.mjs [port]     (0 or nothing: a free port; prints "listening on <url>")
import { randomUUID } from "node:crypto";
import express from "express";
import { AGENT_CARD_PATH, Role, TaskState } from "@a2a-js/sdk";
import { AgentEvent, DefaultRequestHandler, InMemoryTaskStore } from "@a2a-js/sdk/server";
import { agentCardHandler, jsonRpcHandler, restHandler, UserBuilder } from "@a2a-js/sdk/server/express";

const textPart = (text) => ({ content: { $case: "text", value: text }, metadata: undefined, filename: "", mediaType: "text/plain" });

/** Answers "echo: <text>" and completes the task, as examples/src/echo.ts does over our A2A adapter. */
class EchoExecutor {
  async execute(context, eventBus) {
    const { taskId, contextId, userMessage } = context;
    const text = userMessage.parts.map((part) => (part.content?.$case === "text" ? part.content.value : "")).join("");
    if (!context.task) {
      eventBus.publish(
        AgentEvent.task({
          id: taskId,
          contextId,
          status: { state: TaskState.TASK_STATE_SUBMITTED, timestamp: new Date().toISOString(), message: undefined },
          artifacts: [],
          history: [userMessage],
          metadata: undefined,
        }),
      );
    }
    eventBus.publish(
      AgentEvent.artifactUpdate({
        taskId,
        contextId,
        artifact: {
          artifactId: randomUUID(),
          name: "reply",
          description: "",
          parts: [textPart(`echo: ${text}`)],
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
      parts: [textPart(`echo: ${text}`)],
      taskId,
      contextId,
      extensions: [],
      metadata: undefined,
      referenceTaskIds: [],
    };
    eventBus.publish(
      AgentEvent.statusUpdate({
        taskId,
        contextId,
        status: { state: TaskState.TASK_STATE_COMPLETED, timestamp: new Date().toISOString(), message: reply },
        metadata: undefined,
      }),
    );
  }

  async cancelTask() {}
}

const app = express();
const server = app.listen(Number(process.argv[2] ?? 0), "127.0.0.1", () => {
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
  const requestHandler = new DefaultRequestHandler(card, new InMemoryTaskStore(), new EchoExecutor());
  app.use(`/${AGENT_CARD_PATH}`, agentCardHandler({ agentCardProvider: requestHandler }));
  app.use("/a2a/jsonrpc", jsonRpcHandler({ requestHandler, userBuilder: UserBuilder.noAuthentication }));
  app.use("/a2a/rest", restHandler({ requestHandler, userBuilder: UserBuilder.noAuthentication }));
  console.log(`listening on ${url}`);
});
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => server.close(() => process.exit(0)));
