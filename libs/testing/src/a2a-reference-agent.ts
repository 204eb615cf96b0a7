import { randomUUID } from "node:crypto";
import type { Server } from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import { AGENT_CARD_PATH, AgentCard, Role, TaskState, type Message, type Part, type Task } from "@a2a-js/sdk";
import {
  AgentEvent,
  DefaultRequestHandler,
  InMemoryTaskStore,
  type AgentExecutor,
  type ExecutionEventBus,
  type RequestContext,
} from "@a2a-js/sdk/server";
import { agentCardHandler, jsonRpcHandler, restHandler, UserBuilder } from "@a2a-js/sdk/server/express";

/**
 * The `@a2a-js/sdk` reference server (its DefaultRequestHandler over an InMemoryTaskStore behind
 * express, JSON-RPC and HTTP+JSON) with an agent whose behaviour the message's text chooses:
 * - `ask ...`: input-required ("What is your name?"), then "hello <answer>" on the task's next message;
 * - `auth ...`: auth-required ("Sign in first"), then "signed in: <answer>" on the task's next message;
 * - `hang ...`: works until cancelled;
 * - `wait <ms>`: works for <ms>, then answers "waited";
 * - anything else: "echo: <text> (message N of this context)".
 * It counts what it was sent, so tests can say how many tasks a call made and which were cancelled.
 */
export interface ReferenceAgent {
  url: string;
  /** Tasks created (first messages), in order. */
  tasks: string[];
  /** Task ids CancelTask was asked for. */
  cancels: string[];
  /** Every message id received. */
  messageIds: string[];
  close(): Promise<void>;
}

/** The little of express 5 used here: it ships no types, and @types/express is not among our dependencies. */
interface ExpressApp {
  use(path: string, handler: unknown): void;
  listen(port: number, host: string, ready: () => void): Server;
}
const express = createRequire(import.meta.url)("express") as () => ExpressApp;

export async function startReferenceAgent(
  options: { streaming?: boolean; binding?: "JSONRPC" | "HTTP+JSON" } = {},
): Promise<ReferenceAgent> {
  const state = { tasks: [] as string[], cancels: [] as string[], messageIds: [] as string[] };
  const perContext = new Map<string, number>();
  const cancelled = new Map<string, () => void>();
  const executor: AgentExecutor = {
    async execute(context: RequestContext, bus: ExecutionEventBus) {
      const { taskId, contextId, userMessage } = context;
      state.messageIds.push(userMessage.messageId);
      const text = textOf(userMessage.parts);
      const count = (perContext.get(contextId) ?? 0) + 1;
      perContext.set(contextId, count);
      if (!context.task) state.tasks.push(taskId);
      const history = [...(context.task?.history ?? []), userMessage];
      bus.publish(
        AgentEvent.task(task(taskId, contextId, context.task ? TaskState.TASK_STATE_WORKING : TaskState.TASK_STATE_SUBMITTED, history)),
      );
      const waiting = context.task?.status?.state;
      if (waiting === TaskState.TASK_STATE_INPUT_REQUIRED) return complete(bus, taskId, contextId, `hello ${text}`);
      if (waiting === TaskState.TASK_STATE_AUTH_REQUIRED) return complete(bus, taskId, contextId, `signed in: ${text}`);
      if (text.startsWith("auth")) {
        bus.publish(statusEvent(taskId, contextId, TaskState.TASK_STATE_AUTH_REQUIRED, "Sign in first"));
        return bus.finished();
      }
      if (text.startsWith("ask")) {
        bus.publish(statusEvent(taskId, contextId, TaskState.TASK_STATE_INPUT_REQUIRED, "What is your name?"));
        return bus.finished();
      }
      bus.publish(statusEvent(taskId, contextId, TaskState.TASK_STATE_WORKING));
      if (text.startsWith("hang") || text.startsWith("wait")) {
        const ms = text.startsWith("wait") ? Number(text.split(" ")[1] ?? 1000) : 600_000;
        const stopped = await new Promise<boolean>((resolve) => {
          const timer = setTimeout(() => resolve(false), ms);
          cancelled.set(taskId, () => {
            clearTimeout(timer);
            resolve(true);
          });
        });
        cancelled.delete(taskId);
        if (stopped) {
          bus.publish(statusEvent(taskId, contextId, TaskState.TASK_STATE_CANCELED));
          return bus.finished();
        }
        return complete(bus, taskId, contextId, "waited");
      }
      complete(bus, taskId, contextId, `echo: ${text} (message ${count} of this context)`);
    },
    async cancelTask(taskId: string, bus: ExecutionEventBus) {
      state.cancels.push(taskId);
      const stop = cancelled.get(taskId);
      if (stop) stop();
      else bus.finished();
    },
  };

  const app = express();
  const server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, "127.0.0.1", () => resolve(s));
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const interfaces = [
    { url: `${url}/a2a/jsonrpc`, protocolBinding: "JSONRPC", tenant: "", protocolVersion: "1.0" },
    { url: `${url}/a2a/rest`, protocolBinding: "HTTP+JSON", tenant: "", protocolVersion: "1.0" },
  ];
  const card = AgentCard.fromJSON({
    name: "Reference Echo",
    description: "Answers echo: <text>; asks for a name when told to ask",
    supportedInterfaces: options.binding === "HTTP+JSON" ? interfaces.reverse() : interfaces,
    version: "1.0.0",
    capabilities: { streaming: options.streaming ?? true, pushNotifications: false },
    defaultInputModes: ["text"],
    defaultOutputModes: ["text"],
    securitySchemes: { bearer: { httpAuthSecurityScheme: { scheme: "Bearer", description: "" } } },
    skills: [{ id: "echo", name: "Echo", description: "Repeats what it is sent", tags: ["echo"] }],
  });
  const requestHandler = new DefaultRequestHandler(card, new InMemoryTaskStore(), executor);
  app.use(`/${AGENT_CARD_PATH}`, agentCardHandler({ agentCardProvider: requestHandler }));
  app.use("/a2a/jsonrpc", jsonRpcHandler({ requestHandler, userBuilder: UserBuilder.noAuthentication }));
  app.use("/a2a/rest", restHandler({ requestHandler, userBuilder: UserBuilder.noAuthentication }));
  return {
    url,
    ...state,
    close: () =>
      new Promise<void>((resolve) => {
        for (const stop of cancelled.values()) stop();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function textOf(parts: Part[]): string {
  return parts.map((p) => (p.content?.$case === "text" ? p.content.value : "")).join("");
}

const textPart = (text: string): Part => ({
  content: { $case: "text", value: text },
  metadata: undefined,
  filename: "",
  mediaType: "text/plain",
});

function agentMessage(taskId: string, contextId: string, text: string): Message {
  return {
    role: Role.ROLE_AGENT,
    messageId: randomUUID(),
    parts: [textPart(text)],
    taskId,
    contextId,
    extensions: [],
    metadata: undefined,
    referenceTaskIds: [],
  };
}

function task(id: string, contextId: string, state: TaskState, history: Message[]): Task {
  return {
    id,
    contextId,
    status: { state, timestamp: new Date().toISOString(), message: undefined },
    artifacts: [],
    history,
    metadata: undefined,
  };
}

function statusEvent(taskId: string, contextId: string, state: TaskState, text?: string) {
  return AgentEvent.statusUpdate({
    taskId,
    contextId,
    status: { state, timestamp: new Date().toISOString(), message: text ? agentMessage(taskId, contextId, text) : undefined },
    metadata: undefined,
  });
}

function complete(bus: ExecutionEventBus, taskId: string, contextId: string, answer: string): void {
  bus.publish(
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
  bus.publish(statusEvent(taskId, contextId, TaskState.TASK_STATE_COMPLETED));
  bus.finished();
}
