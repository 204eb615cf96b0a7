import { SendMessageRequest, TaskState, type Task } from "@a2a-js/sdk";
import { ClientFactory, type Client } from "@a2a-js/sdk/client";
import type { Operation } from "../measure.js";
import type { RunningServer } from "../servers/running-server.js";
import type { Scenario } from "./scenario.js";

export function a2aClient(server: RunningServer): Promise<Client> {
  return new ClientFactory().createFromUrl(server.a2aUrl);
}

/** A user message in a new context (no contextId: the server starts one). */
export function helloMessage(): SendMessageRequest {
  return SendMessageRequest.fromJSON({ message: { role: "ROLE_USER", messageId: crypto.randomUUID(), parts: [{ text: "hi" }] } });
}

/** A completed task whose reply (status message or artifact) is "echo: hi". */
export function expectCompletedEcho(result: unknown): Task {
  const task = result as Task;
  if (task?.status?.state !== TaskState.TASK_STATE_COMPLETED || !JSON.stringify(task).includes('"echo: hi"')) {
    throw new Error(`unexpected A2A result: ${JSON.stringify(result).slice(0, 500)}`);
  }
  return task;
}

export const a2aSend: Scenario = {
  id: "a2a-send",
  title: "A2A SendMessage (new context)",
  protocol: "a2a",
  description:
    "`client.sendMessage` with the official `@a2a-js/sdk` client (ClientFactory, protocol 1.0), a new context each time; the answer is the completed task.",
  async setup(server): Promise<Operation> {
    const client = await a2aClient(server);
    return async () => {
      expectCompletedEcho(await client.sendMessage(helloMessage()));
    };
  },
};

export const a2aGetTask: Scenario = {
  id: "a2a-get-task",
  title: "A2A GetTask",
  protocol: "a2a",
  description: "`client.getTask` of one completed task (sent once before measuring), with the official `@a2a-js/sdk` client.",
  async setup(server): Promise<Operation> {
    const client = await a2aClient(server);
    const { id } = expectCompletedEcho(await client.sendMessage(helloMessage()));
    return async () => {
      expectCompletedEcho(await client.getTask({ tenant: "", id, historyLength: undefined }));
    };
  },
};
