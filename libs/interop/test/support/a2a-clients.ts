import { AgentCard, SendMessageRequest, type Part, type Task } from "@a2a-js/sdk";
import { ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory, RestTransportFactory, type Client } from "@a2a-js/sdk/client";

/**
 * Test helpers over the official @a2a-js/sdk client: a client that sends `Authorization: Bearer <token>`
 * on every request (the card fetch included) over the preferred binding, and the error code a call failed with.
 */
export async function clientAs(base: string, token: string, binding: "JSONRPC" | "HTTP+JSON", assistant = "echo"): Promise<Client> {
  const fetchImpl: typeof fetch = (input, init) => {
    const headers = new Headers(init?.headers);
    headers.set("Authorization", `Bearer ${token}`);
    return fetch(input, { ...init, headers });
  };
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new JsonRpcTransportFactory({ fetchImpl }), new RestTransportFactory({ fetchImpl })],
      preferredTransports: [binding],
    }),
  );
  const card = await (await fetchImpl(`${base}/a2a/${assistant}/.well-known/agent-card.json`)).json();
  return factory.createFromAgentCard(AgentCard.fromJSON(card));
}

/** The JSON-RPC error code a call failed with (the HTTP status for the REST client). */
export async function errorCode(promise: Promise<unknown>): Promise<number> {
  try {
    await promise;
  } catch (error) {
    const e = error as { envelopeCode?: number; code?: number; statusCode?: number };
    return e.envelopeCode ?? e.code ?? e.statusCode ?? NaN;
  }
  throw new Error("expected the call to fail");
}

/** A user message of `parts` (v1.0 JSON: `{ text }`, `{ data }`, ...), optionally to a task or context. */
export function messageRequest(
  parts: unknown[],
  options: { taskId?: string; contextId?: string; returnImmediately?: boolean } = {},
): SendMessageRequest {
  return SendMessageRequest.fromJSON({
    message: { messageId: crypto.randomUUID(), role: "ROLE_USER", taskId: options.taskId ?? "", contextId: options.contextId ?? "", parts },
    ...(options.returnImmediately ? { configuration: { returnImmediately: true } } : {}),
  });
}

/** SendMessage through the official client; the answer must be a task. */
export async function sendTask(client: Client, parts: unknown[], options: Parameters<typeof messageRequest>[1] = {}): Promise<Task> {
  const result = await client.sendMessage(messageRequest(parts, options));
  if (!("status" in result)) throw new Error(`expected a task, got ${JSON.stringify(result)}`);
  return result;
}

/** The text parts' texts. */
export function textsOf(parts: Part[]): string[] {
  return parts.flatMap((p) => (p.content?.$case === "text" ? [p.content.value] : []));
}
