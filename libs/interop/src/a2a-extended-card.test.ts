import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AgentCard } from "@a2a-js/sdk";
import { LegacyJsonRpcTransport } from "@a2a-js/sdk/compat/v0_3/client";
import { Auth, HTTPException } from "@langchain/langgraph-sdk/auth";
import { startTestServer, type TestServer } from "@agent-server/agent-protocol/testing";
import { drivers } from "@agent-server/testing";
import { a2aRoutes, extendedCardFromJson, type A2ARoutesOptions, type ExtendedCardContext } from "./index.js";
import { clientAs, errorCode } from "../test/support/a2a-clients.js";

/**
 * GetExtendedAgentCard through the official @a2a-js/sdk clients over real HTTP: the hook's card for
 * the authenticated caller on JSON-RPC v1.0, HTTP+JSON and JSON-RPC v0.3; never for an anonymous
 * caller under custom auth; the JSON-file variant merged over the public card; UnsupportedOperation
 * without `a2a.extended_card`.
 */
const auth = new Auth().authenticate((request: Request) => {
  const token = request.headers.get("authorization")?.replace(/^Bearer /, "");
  // "guest" is let in by the project's handler, but as an anonymous user.
  if (token === "guest") return { identity: "guest", is_authenticated: false, permissions: [] };
  if (token !== "alice" && token !== "bob") throw new HTTPException(401, { message: "Invalid token" });
  return { identity: token, permissions: [`plan:${token === "alice" ? "pro" : "free"}`], display_name: token.toUpperCase() };
});

const hookCalls: ExtendedCardContext[] = [];
/** A project hook: adds a skill for the caller's plan; on the approval agent, returns something that is not a card. */
function extendCard(card: Record<string, unknown>, context: ExtendedCardContext): unknown {
  hookCalls.push(context);
  if (context.assistant.graph_id === "approval") return "not a card";
  const user = context.user!;
  const skills = card.skills as unknown[];
  return {
    ...card,
    description: `${String(card.description)} (for ${String(user.display_name)})`,
    skills: [...skills, { id: "priority", name: "Priority", description: `For ${(user.permissions as string[]).join(", ")}`, tags: [] }],
  };
}

const servers: Array<{ close(): Promise<void> }> = [];
const errors: string[] = [];
let hooked: string;
let plain: string;
let fromFile: string;

async function serve(options: A2ARoutesOptions, withAuth: boolean): Promise<string> {
  const opened = await drivers.find((d) => d.name === "memory")!.open();
  const server: TestServer = await startTestServer(opened.storage, {
    app: { ...(withAuth ? { auth } : {}), extraRoutes: [(deps) => a2aRoutes(deps, options)] },
  });
  servers.push({ close: () => server.close() }, { close: opened.dispose });
  return server.url.replace(/\/$/, "");
}

beforeAll(async () => {
  const logger = { error: (_fields: Record<string, unknown>, message: string) => errors.push(message) };
  hooked = await serve({ authConfigured: true, extendedCard: extendCard, logger }, true);
  plain = await serve({ authConfigured: true }, true);
  // The file variant on a server without custom auth: every caller is anonymous there, and gets it.
  const file = {
    description: "The full echo agent",
    capabilities: { extensions: [{ uri: "https://acme.example/ext/audit", description: "Audited", required: false }] },
    skills: [
      { id: "echo", name: "Echo (full)", description: "Echoes with history", tags: ["echo"] },
      { id: "export", name: "Export", description: "Exports the conversation", tags: ["export"] },
    ],
  };
  fromFile = await serve({ extendedCard: extendedCardFromJson(file, "extended-card.json") }, false);
});

afterAll(async () => {
  for (const server of servers.splice(0).reverse()) await server.close();
});

function bearer(token: string): typeof fetch {
  return (input, init) => {
    const headers = new Headers(init?.headers);
    headers.set("Authorization", `Bearer ${token}`);
    return fetch(input, { ...init, headers });
  };
}

describe("GetExtendedAgentCard", () => {
  it("is announced on the public card (v1.0 and v0.3 flags) when configured, and not otherwise", async () => {
    const card = async (base: string) => (await (await bearer("alice")(`${base}/a2a/echo/.well-known/agent-card.json`)).json()) as any;
    expect((await card(hooked)).capabilities.extendedAgentCard).toBe(true);
    expect((await card(hooked)).supportsAuthenticatedExtendedCard).toBe(true);
    expect((await card(plain)).capabilities.extendedAgentCard).toBe(false);
    expect((await card(plain)).supportsAuthenticatedExtendedCard).toBe(false);
  });

  it.each([
    ["JSONRPC", "alice", "ALICE", "plan:pro"],
    ["HTTP+JSON", "bob", "BOB", "plan:free"],
  ] as const)("returns the hook's card for the authenticated caller over %s (Client.getAgentCard)", async (binding, token, shown, plan) => {
    const client = await clientAs(hooked, token, binding);
    hookCalls.length = 0;
    // The SDK's Client fetches the extended card itself when the card announces one.
    const card = await client.getAgentCard();
    expect(card.description).toBe(`Runs the LangGraph graph "echo". (for ${shown})`);
    expect(card.skills.map((s) => [s.id, s.description])).toEqual([
      ["echo", 'Runs the LangGraph graph "echo".'],
      ["priority", `For ${plan}`],
    ]);
    // The public card's interfaces and capabilities come through.
    expect(card.supportedInterfaces.map((i) => i.protocolBinding)).toEqual(["JSONRPC", "HTTP+JSON", "JSONRPC"]);
    expect(card.capabilities?.extendedAgentCard).toBe(true);
    expect(hookCalls).toHaveLength(1);
    expect(hookCalls[0]!.user).toMatchObject({ identity: token, is_authenticated: true });
    expect(hookCalls[0]!.assistant.graph_id).toBe("echo");
  });

  it("answers the v0.3 agent/getAuthenticatedExtendedCard (the SDK's LegacyJsonRpcTransport)", async () => {
    const legacy = new LegacyJsonRpcTransport({ endpoint: `${hooked}/a2a/echo`, fetchImpl: bearer("alice") });
    const card = await legacy.getExtendedAgentCard({ tenant: "" });
    expect(card.description).toMatch(/\(for ALICE\)$/);
    expect(card.skills.map((s) => s.id)).toEqual(["echo", "priority"]);
  });

  it("is never given to an anonymous caller under custom auth", async () => {
    hookCalls.length = 0;
    const rpc = (token: string | undefined) =>
      fetch(`${hooked}/a2a/echo`, {
        method: "POST",
        headers: { "Content-Type": "application/json", "A2A-Version": "1.0", ...(token ? { Authorization: `Bearer ${token}` } : {}) },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "GetExtendedAgentCard", params: {} }),
      });
    // No credentials: the auth middleware refuses the request.
    expect((await rpc(undefined)).status).toBe(401);
    // Let in by the handler as an anonymous user: still refused, as a 401 in each binding's shape.
    const guest = await rpc("guest");
    expect(guest.status).toBe(401);
    expect(await guest.json()).toMatchObject({ id: 1, error: { code: -32600, message: expect.stringMatching(/authenticated/) } });
    const rest = await bearer("guest")(`${hooked}/a2a/echo/extendedAgentCard`, { headers: { "A2A-Version": "1.0" } });
    expect(rest.status).toBe(401);
    expect(await rest.json()).toMatchObject({ error: { code: 401, status: "UNAUTHENTICATED" } });
    const legacy = new LegacyJsonRpcTransport({ endpoint: `${hooked}/a2a/echo`, fetchImpl: bearer("guest") });
    await expect(legacy.getExtendedAgentCard({ tenant: "" })).rejects.toThrow();
    expect(hookCalls).toEqual([]);
  });

  it("reports a hook that returns no card as an internal error, logged", async () => {
    const client = await clientAs(hooked, "alice", "JSONRPC", "approval");
    expect(await errorCode(client.getAgentCard())).toBe(-32603);
    expect(errors.some((m) => /unexpected error/.test(m))).toBe(true);
  });

  it.each(["JSONRPC", "HTTP+JSON"] as const)("merges the JSON file over the public card (%s)", async (binding) => {
    const client = await clientAs(fromFile, "anyone", binding);
    const card = await client.getAgentCard();
    expect(card.name).toBe("echo");
    expect(card.description).toBe("The full echo agent");
    // A skill with a public skill's id replaces it; the others are appended.
    expect(card.skills.map((s) => [s.id, s.name])).toEqual([
      ["echo", "Echo (full)"],
      ["export", "Export"],
    ]);
    // Objects merge field by field: the public capabilities stay.
    expect(card.capabilities).toMatchObject({ streaming: true, pushNotifications: true, extendedAgentCard: true });
    expect(card.capabilities?.extensions.map((e) => e.uri)).toEqual(["https://acme.example/ext/audit"]);
  });

  it.each(["JSONRPC", "HTTP+JSON"] as const)("is UnsupportedOperation without a2a.extended_card (%s)", async (binding) => {
    const client = await clientAs(plain, "alice", binding);
    // The public card does not announce one, so the Client returns the public card itself...
    expect((await client.getAgentCard()).capabilities?.extendedAgentCard).toBe(false);
    // ...and asking anyway is refused with the SDK's code for it.
    const response =
      binding === "JSONRPC"
        ? await bearer("alice")(`${plain}/a2a/echo`, {
            method: "POST",
            headers: { "Content-Type": "application/json", "A2A-Version": "1.0" },
            body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "GetExtendedAgentCard", params: {} }),
          })
        : await bearer("alice")(`${plain}/a2a/echo/extendedAgentCard`, { headers: { "A2A-Version": "1.0" } });
    const body = (await response.json()) as any;
    if (binding === "JSONRPC") expect(body.error.code).toBe(-32004);
    else expect([response.status, body.error.status]).toEqual([400, "FAILED_PRECONDITION"]);
  });
});

/** The card the public endpoint serves still parses as v1.0 after the extended flags were added. */
describe("public card with an extended card configured", () => {
  it("stays a plain v1.0 card", async () => {
    const json = await (await bearer("alice")(`${hooked}/a2a/echo/.well-known/agent-card.json`)).json();
    expect(AgentCard.fromJSON(json).skills.map((s) => s.id)).toEqual(["echo"]);
  });
});
