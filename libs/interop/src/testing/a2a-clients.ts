import { AgentCard } from "@a2a-js/sdk";
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
