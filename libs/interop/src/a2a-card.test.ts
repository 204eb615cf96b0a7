import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { AgentCard } from "@a2a-js/sdk";
import { parseLegacyAgentCard } from "@a2a-js/sdk/compat/v0_3/client";
import { Auth, HTTPException } from "@langchain/langgraph-sdk/auth";
import { startTestServer, type TestServer } from "@agent-server/agent-protocol/testing";
import { systemAssistantId } from "@agent-server/engine";
import { drivers } from "@agent-server/testing";
import { a2aRoutes, type A2ACardConfig, type A2ARoutesOptions } from "./index.js";

/**
 * What agent cards say: fields from langgraph.json's `a2a` block and from the assistant (its own
 * `metadata.a2a`, name, description, version, its graph's description), with the documented
 * precedence; the security schemes declared under custom auth; the v0.3 fields beside v1.0's. Each
 * card is fetched over real HTTP and read back with the official SDK's v1.0 and v0.3 parsers.
 */
const ECHO_GRAPH = fileURLToPath(new URL("../../../examples/src/echo.ts", import.meta.url));
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;

const bearerAuth = new Auth().authenticate((request: Request) => {
  const token = request.headers.get("authorization")?.replace(/^Bearer /, "");
  if (token !== "alice") throw new HTTPException(401, { message: "Invalid token" });
  return { identity: token, permissions: [] };
});
const AS_ALICE = { headers: { Authorization: "Bearer alice" } };

const open: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of open.splice(0).reverse()) await close();
});

async function serve(options: A2ARoutesOptions = {}, auth?: unknown): Promise<{ server: TestServer; base: string }> {
  const opened = await drivers.find((d) => d.name === "memory")!.open();
  open.push(opened.dispose);
  const server = await startTestServer(opened.storage, { app: { auth, extraRoutes: [(deps) => a2aRoutes(deps, options)] } });
  open.push(() => server.close());
  return { server, base: server.url.replace(/\/$/, "") };
}

async function cardJson(base: string, id: string, init?: RequestInit): Promise<Record<string, any>> {
  const response = await fetch(`${base}/a2a/${id}/.well-known/agent-card.json`, init);
  expect(response.status).toBe(200);
  return (await response.json()) as Record<string, any>;
}

/** The served JSON as a v0.3-only reader sees it (no v1.0 interfaces), through the SDK's v0.3 parser. */
function asLegacyCard(json: Record<string, unknown>): AgentCard {
  const { supportedInterfaces: _v1, ...legacy } = json;
  return parseLegacyAgentCard(legacy);
}

describe("agent card fields", () => {
  it("come from metadata.a2a, then agents[assistant id], then agents[graph id], then card defaults", async () => {
    const approvalId = systemAssistantId("approval");
    const cardConfig: A2ACardConfig = {
      card: {
        version: "1.2.0",
        provider: { organization: "Acme", url: "https://acme.example" },
        documentation_url: "https://acme.example/docs",
        icon_url: "https://acme.example/icon.png",
        default_input_modes: ["text/plain", "application/json"],
        default_output_modes: ["application/json"],
      },
      agents: {
        echo: {
          name: "Echo agent",
          description: "Says it back",
          skills: [{ id: "repeat", name: "Repeat", description: "Repeats the message", tags: ["echo"], examples: ["hello"] }],
        },
        approval: { name: "Approval desk", description: "Described by graph id", version: "3.0.0" },
        [approvalId]: { description: "Asks before deploying" },
      },
    };
    const { server, base } = await serve({ cardConfig });

    const echo = AgentCard.fromJSON(await cardJson(base, "echo"));
    expect(echo).toMatchObject({
      name: "Echo agent",
      description: "Says it back",
      version: "1.2.0",
      provider: { organization: "Acme", url: "https://acme.example" },
      documentationUrl: "https://acme.example/docs",
      iconUrl: "https://acme.example/icon.png",
      defaultInputModes: ["text/plain", "application/json"],
      defaultOutputModes: ["application/json"],
    });
    // A configured skill takes the card's modes unless it names its own.
    expect(echo.skills).toEqual([
      {
        id: "repeat",
        name: "Repeat",
        description: "Repeats the message",
        tags: ["echo"],
        examples: ["hello"],
        inputModes: ["text/plain", "application/json"],
        outputModes: ["application/json"],
        securityRequirements: [],
      },
    ]);

    // The assistant-id entry wins for the description; the graph-id entry still gives name and version.
    const approval = AgentCard.fromJSON(await cardJson(base, approvalId));
    expect(approval).toMatchObject({ name: "Approval desk", description: "Asks before deploying", version: "3.0.0" });
    expect(approval.provider?.organization).toBe("Acme");
    // No configured skills: one skill for the graph, with the card's name, description and modes.
    expect(approval.skills).toEqual([
      {
        id: "approval",
        name: "Approval desk",
        description: "Asks before deploying",
        tags: ["langgraph", "approval"],
        examples: [],
        inputModes: ["text/plain", "application/json"],
        outputModes: ["application/json"],
        securityRequirements: [],
      },
    ]);

    // An assistant created through the API carries its own card fields in metadata.a2a; what it leaves
    // out comes from its graph's entry (even over its own description), then the card defaults.
    const own = await server.client.assistants.create({
      graphId: "echo",
      name: "api-assistant",
      description: "Its own description",
      metadata: {
        a2a: {
          name: "Own name",
          version: "9.0.0",
          default_output_modes: ["text/plain"],
          skills: [{ id: "own", name: "Own", description: "Its own skill", output_modes: ["text/markdown"] }],
        },
      },
    });
    const ownCard = AgentCard.fromJSON(await cardJson(base, own.assistant_id));
    expect(ownCard).toMatchObject({ name: "Own name", description: "Says it back", version: "9.0.0", defaultOutputModes: ["text/plain"] });
    expect(ownCard.documentationUrl).toBe("https://acme.example/docs");
    expect(ownCard.skills.map((s) => [s.id, s.inputModes, s.outputModes])).toEqual([
      ["own", ["text/plain", "application/json"], ["text/markdown"]],
    ]);

    // Without metadata.a2a, an API assistant of the graph gets the graph's entry.
    const plain = await server.client.assistants.create({ graphId: "echo", name: "plain" });
    expect(AgentCard.fromJSON(await cardJson(base, plain.assistant_id))).toMatchObject({ name: "Echo agent", version: "1.2.0" });
  });

  it("without a block, come from the assistant and its graph; a description never shows a uuid", async () => {
    const { server, base } = await serve();

    // A system assistant: the graph id as name; no description anywhere -> a sentence naming the graph.
    const whoami = AgentCard.fromJSON(await cardJson(base, "whoami"));
    expect(whoami.name).toBe("whoami");
    expect(whoami.description).toBe('Runs the LangGraph graph "whoami".');
    expect(whoami.description).not.toMatch(UUID);
    expect(whoami.version).toBe("1");
    expect(whoami.provider).toBeUndefined();
    expect(whoami.documentationUrl).toBeUndefined();
    expect(whoami.skills).toEqual([
      expect.objectContaining({ id: "whoami", name: "whoami", tags: ["langgraph", "whoami"], inputModes: ["text/plain"] }),
    ]);
    expect(whoami.defaultOutputModes).toEqual(["text/plain", "application/json"]);
    // The same card at LangGraph's path, by assistant id.
    const byId = (await (await fetch(`${base}/.well-known/agent-card.json?assistant_id=${systemAssistantId("whoami")}`)).json()) as {
      description: string;
    };
    expect(byId.description).toBe(whoami.description);

    // An API assistant: its name and description; its version follows its updates.
    const named = await server.client.assistants.create({ graphId: "echo", name: "Named", description: "Mine" });
    const namedCard = AgentCard.fromJSON(await cardJson(base, named.assistant_id));
    expect(namedCard).toMatchObject({ name: "Named", description: "Mine", version: "1" });
    expect(namedCard.skills[0]).toMatchObject({ id: "echo", name: "Named", description: "Mine" });
    await server.client.assistants.update(named.assistant_id, { name: "Renamed" });
    expect(AgentCard.fromJSON(await cardJson(base, named.assistant_id))).toMatchObject({ name: "Renamed", version: "2" });

    // An assistant without a description: the graph's langgraph.json description.
    await server.engine.registry.load({ described: { path: `${ECHO_GRAPH}:graph`, description: "Echoes, as langgraph.json says" } }, "/");
    const undescribed = await server.client.assistants.create({ graphId: "described", name: "undescribed" });
    expect((await cardJson(base, undescribed.assistant_id)).description).toBe("Echoes, as langgraph.json says");
  });

  it("leave out metadata.a2a fields that are not valid card fields, keep the valid ones, and report each once", async () => {
    const warnings: Array<{ fields: Record<string, unknown>; message: string }> = [];
    const logger = {
      error: () => undefined,
      warn: (fields: Record<string, unknown>, message: string) => warnings.push({ fields, message }),
    };
    const { server, base } = await serve({ logger });
    const assistant = await server.client.assistants.create({
      graphId: "echo",
      metadata: { a2a: { name: "Valid name", icon_url: "icon.png", colour: "blue", skills: [{ id: "s" }] } },
    });
    for (let i = 0; i < 2; i++) {
      const card = await cardJson(base, assistant.assistant_id);
      expect(card.name).toBe("Valid name");
      expect(card.iconUrl).toBeUndefined();
      expect(card.skills.map((s: { id: string }) => s.id)).toEqual(["echo"]);
    }
    expect(warnings.map((w) => w.fields.field).sort()).toEqual([
      "metadata.a2a.colour",
      "metadata.a2a.icon_url",
      "metadata.a2a.skills.0.name",
    ]);
    expect(warnings.find((w) => w.fields.field === "metadata.a2a.icon_url")?.message).toMatch(/must be an absolute http\(s\) URL/);
    expect(warnings.every((w) => w.fields.assistant_id === assistant.assistant_id)).toBe(true);
  });

  it("are also served in v0.3 names beside v1.0's, readable by the SDK's v0.3 card parser", async () => {
    const cardConfig: A2ACardConfig = {
      card: {
        version: "1.2.0",
        provider: { organization: "Acme", url: "https://acme.example" },
        documentation_url: "https://acme.example/docs",
      },
      agents: {
        echo: { icon_url: "https://acme.example/echo.png", skills: [{ id: "repeat", name: "Repeat", description: "Repeats", tags: [] }] },
      },
    };
    const { base } = await serve({ cardConfig });
    const json = await cardJson(base, "echo");
    expect(json).toMatchObject({
      url: `${base}/a2a/echo`,
      preferredTransport: "JSONRPC",
      protocolVersion: "0.3.0",
      additionalInterfaces: [{ url: `${base}/a2a/echo`, transport: "JSONRPC" }],
      supportsAuthenticatedExtendedCard: false,
      security: [],
      securitySchemes: {},
    });
    // v1.0 JSON leaves empty lists out; v0.3 readers require them.
    expect(json.skills[0].tags).toEqual([]);
    const v1 = AgentCard.fromJSON(json);
    const v03 = asLegacyCard(json);
    for (const field of [
      "name",
      "description",
      "version",
      "provider",
      "documentationUrl",
      "iconUrl",
      "defaultInputModes",
      "defaultOutputModes",
    ] as const) {
      expect(v03[field], field).toEqual(v1[field]);
    }
    expect(v03.skills.map((s) => [s.id, s.name, s.description, s.tags])).toEqual([["repeat", "Repeat", "Repeats", []]]);
    expect(v03.capabilities).toMatchObject({ streaming: true, pushNotifications: true, extendedAgentCard: false });
  });
});

describe("agent card security", () => {
  it("declares nothing without custom auth, even with a2a.security set", async () => {
    const { base } = await serve({ cardConfig: { security: { scheme: "api_key", name: "x-api-key" } } });
    const json = await cardJson(base, "echo");
    expect(json.securitySchemes).toEqual({});
    expect(json.securityRequirements).toBeUndefined();
    expect(json.security).toEqual([]);
  });

  it.each<[string, A2ACardConfig["security"], Record<string, unknown>, Array<Record<string, string[]>>]>([
    [
      "no setting: HTTP bearer",
      undefined,
      { bearer: { httpAuthSecurityScheme: { scheme: "Bearer" }, type: "http", scheme: "Bearer" } },
      [{ bearer: [] }],
    ],
    [
      "bearer with a format",
      { scheme: "bearer", bearer_format: "JWT", description: "A JWT from Acme SSO" },
      {
        bearer: {
          httpAuthSecurityScheme: { scheme: "Bearer", bearerFormat: "JWT", description: "A JWT from Acme SSO" },
          type: "http",
          scheme: "Bearer",
          bearerFormat: "JWT",
          description: "A JWT from Acme SSO",
        },
      },
      [{ bearer: [] }],
    ],
    [
      "an API key header",
      { scheme: "api_key", in: "header", name: "x-api-key" },
      { api_key: { apiKeySecurityScheme: { location: "header", name: "x-api-key" }, type: "apiKey", in: "header", name: "x-api-key" } },
      [{ api_key: [] }],
    ],
    [
      "OAuth2 client credentials with scopes",
      {
        scheme: "oauth2",
        flows: { client_credentials: { token_url: "https://auth.acme.example/token", scopes: { "agent:call": "Call the agent" } } },
        scopes: ["agent:call"],
      },
      {
        oauth2: {
          oauth2SecurityScheme: {
            flows: { clientCredentials: { tokenUrl: "https://auth.acme.example/token", scopes: { "agent:call": "Call the agent" } } },
          },
          type: "oauth2",
          flows: { clientCredentials: { tokenUrl: "https://auth.acme.example/token", scopes: { "agent:call": "Call the agent" } } },
        },
      },
      [{ oauth2: ["agent:call"] }],
    ],
    [
      "OpenID Connect, or an API key",
      [
        { scheme: "openid", openid_connect_url: "https://auth.acme.example/.well-known/openid-configuration" },
        { scheme: "api_key", in: "query", name: "key" },
      ],
      {
        openid: {
          openIdConnectSecurityScheme: { openIdConnectUrl: "https://auth.acme.example/.well-known/openid-configuration" },
          type: "openIdConnect",
          openIdConnectUrl: "https://auth.acme.example/.well-known/openid-configuration",
        },
        api_key: { apiKeySecurityScheme: { location: "query", name: "key" }, type: "apiKey", in: "query", name: "key" },
      },
      [{ openid: [] }, { api_key: [] }],
    ],
  ])("declares the scheme under custom auth: %s", async (_label, security, schemes, legacyRequirements) => {
    const { base } = await serve({ cardConfig: security === undefined ? {} : { security }, authConfigured: true }, bearerAuth);
    const json = await cardJson(base, "echo", AS_ALICE);
    expect(json.securitySchemes).toEqual(schemes);
    expect(json.security).toEqual(legacyRequirements);
    // v1.0 requirements: one per scheme, with its scopes.
    const v1 = AgentCard.fromJSON(json);
    expect(v1.securityRequirements.map((r) => Object.fromEntries(Object.entries(r.schemes).map(([k, v]) => [k, v.list])))).toEqual(
      legacyRequirements,
    );
    // Both readers see the same schemes.
    expect(asLegacyCard(json).securitySchemes).toEqual(v1.securitySchemes);
    expect(asLegacyCard(json).securityRequirements).toEqual(v1.securityRequirements);
  });
});
