import { AgentCard } from "@a2a-js/sdk";
import { ClientFactory, ClientFactoryOptions, type Client } from "@a2a-js/sdk/client";
import { GrpcTransportFactory } from "@a2a-js/sdk/client/grpc";

/**
 * Test helpers for the A2A gRPC binding over the official @a2a-js/sdk client: the card is fetched over
 * HTTP (with `Authorization: Bearer <token>` when a token is given), and the client is made from it with
 * `GrpcTransportFactory` preferred, so it dials the card's GRPC interface with its tenant.
 */
export async function fetchCard(base: string, assistant: string, token?: string): Promise<AgentCard> {
  const response = await fetch(`${base}/a2a/${assistant}/.well-known/agent-card.json`, {
    headers: token ? { Authorization: `Bearer ${token}` } : {},
  });
  if (!response.ok) throw new Error(`card of ${assistant}: HTTP ${response.status} ${await response.text()}`);
  return AgentCard.fromJSON(await response.json());
}

/** A client over gRPC from `card`; with a token, every call carries `authorization: Bearer <token>` metadata. */
export async function grpcClientFromCard(card: AgentCard, token?: string): Promise<Client> {
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new GrpcTransportFactory()],
      preferredTransports: ["GRPC"],
      ...(token
        ? {
            clientConfig: {
              interceptors: [
                {
                  before: async (args) => {
                    args.options = {
                      ...args.options,
                      serviceParameters: { ...args.options?.serviceParameters, authorization: `Bearer ${token}` },
                    };
                  },
                  after: async () => undefined,
                },
              ],
            },
          }
        : {}),
    }),
  );
  const client = await factory.createFromAgentCard(card);
  // The factory falls back to another binding when it cannot use gRPC; these tests are about gRPC only.
  const transport = (client as unknown as { transport: { protocolName: string } }).transport;
  if (transport.protocolName !== "GRPC") throw new Error(`expected a gRPC client, got ${transport.protocolName}`);
  return client;
}

export async function grpcClient(base: string, assistant: string, token?: string): Promise<Client> {
  return grpcClientFromCard(await fetchCard(base, assistant, token), token);
}

/** The gRPC status code and message a call failed with (the SDK client's `GrpcA2AError`). */
export async function grpcFailure(promise: Promise<unknown>): Promise<{ status: number; message: string; error: Error }> {
  try {
    await promise;
  } catch (error) {
    const e = error as Error & { status?: number; transport?: string };
    if (e.transport !== "grpc" || typeof e.status !== "number") throw error;
    return { status: e.status, message: e.message, error: e };
  }
  throw new Error("expected the call to fail");
}
