import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { AgentCard } from "@a2a-js/sdk";
import { ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory, RestTransportFactory } from "@a2a-js/sdk/client";
import { InvalidInputError } from "@agent-server/core";
import { systemAssistantId } from "@agent-server/engine";
import { afterEach, describe, expect, it } from "vitest";
import { loadExtendedCard } from "./a2a-card.js";
import { killAll, runCli, startCli } from "../../test/support/cli-process.js";

const FIXTURE_A2A = fileURLToPath(new URL("../../test/support/fixture-project/langgraph-a2a.json", import.meta.url));
const FIXTURE_DIR = dirname(FIXTURE_A2A);

afterEach(killAll);

/** The fixture's auth (x-api-key: fixture-secret) on every request the SDK client makes. */
const withKey: typeof fetch = (input, init) => {
  const headers = new Headers(init?.headers);
  headers.set("x-api-key", "fixture-secret");
  return fetch(input, { ...init, headers });
};

describe("agent-server with langgraph.json a2a.card and a2a.extended_card", () => {
  it("serves the configured card, its security scheme, and the hook's extended card to the authenticated caller", async () => {
    const server = await startCli(["dev", "--config", FIXTURE_A2A, "--storage", "memory", "--port", "0", "--no-reload"]);
    expect(server.stdout()).toMatch(/Loading the A2A extended agent card from \.\/a2a-card\.ts:extendCard/);
    // The new keys are honoured, not reported as unsupported.
    expect(server.stdout()).not.toMatch(/not supported by agent-server/);

    // The card is behind the project's auth, like every A2A route.
    expect((await fetch(`${server.url}/.well-known/agent-card.json`)).status).toBe(401);
    const json = (await (await withKey(`${server.url}/.well-known/agent-card.json`)).json()) as Record<string, any>;
    const card = AgentCard.fromJSON(json);
    expect(card).toMatchObject({
      name: "Acme echo",
      description: "Repeats what you say",
      version: "1.2.0",
      provider: { organization: "Acme", url: "https://acme.example" },
      documentationUrl: "https://acme.example/docs/echo",
      capabilities: { streaming: true, extendedAgentCard: true },
    });
    expect(card.skills.map((s) => s.id)).toEqual(["repeat"]);
    expect(json.securitySchemes).toEqual({
      api_key: { apiKeySecurityScheme: { location: "header", name: "x-api-key" }, type: "apiKey", in: "header", name: "x-api-key" },
    });
    expect(json).toMatchObject({ supportsAuthenticatedExtendedCard: true, security: [{ api_key: [] }], protocolVersion: "0.3.0" });

    for (const binding of ["JSONRPC", "HTTP+JSON"] as const) {
      const factory = new ClientFactory(
        ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
          transports: [new JsonRpcTransportFactory({ fetchImpl: withKey }), new RestTransportFactory({ fetchImpl: withKey })],
          preferredTransports: [binding],
        }),
      );
      const client = await factory.createFromAgentCard(card);
      const extended = await client.getAgentCard();
      expect(extended.description, binding).toBe("Repeats what you say Signed in as fixture-user.");
      expect(
        extended.skills.map((s) => [s.id, s.description]),
        binding,
      ).toEqual([
        ["repeat", "Repeats the last message"],
        ["account", "The account of fixture-user"],
      ]);
    }
    // The same through the system assistant's id, on the extended card route of HTTP+JSON.
    const byId = await withKey(`${server.url}/a2a/${systemAssistantId("echo")}/extendedAgentCard`, { headers: { "A2A-Version": "1.0" } });
    expect(((await byId.json()) as { description: string }).description).toMatch(/Signed in as fixture-user\.$/);
  });

  it("refuses to start when a2a.extended_card names a file that is missing, with the setting and the path", async () => {
    const dir = mkdtempSync(join(tmpdir(), "agent-server-a2a-"));
    try {
      const config = join(dir, "langgraph.json");
      writeFileSync(config, JSON.stringify({ graphs: {}, a2a: { extended_card: "./missing-card.ts:extendCard" } }));
      const run = runCli(["dev", "--config", config, "--storage", "memory", "--port", "0", "--no-reload"]);
      expect(await run.exited).toBe(2);
      expect(run.stdout() + run.stderr()).toContain(
        `a2a.extended_card "./missing-card.ts:extendCard": file not found: ${join(dir, "missing-card.ts")}`,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("loadExtendedCard", () => {
  const dirs: string[] = [];
  afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));
  function project(files: Record<string, string>): string {
    const dir = mkdtempSync(join(tmpdir(), "agent-server-a2a-card-"));
    dirs.push(dir);
    for (const [name, content] of Object.entries(files)) writeFileSync(join(dir, name), content);
    return dir;
  }

  it("reads a JSON file as fields merged over the public card", async () => {
    const hook = await loadExtendedCard("./a2a-extended-card.json", FIXTURE_DIR);
    const merged = (await hook(
      { name: "echo", description: "public", skills: [{ id: "echo", name: "echo", description: "d", tags: [] }] },
      { user: null, assistant: {} as never },
    )) as { name: string; description: string; skills: Array<{ id: string }> };
    expect(merged.name).toBe("echo");
    expect(merged.description).toBe("The full echo agent");
    expect(merged.skills.map((s) => s.id)).toEqual(["echo", "history"]);
  });

  it("loads a module's named or default export", async () => {
    const dir = project({
      "named.mjs": "export const extend = (card) => ({ ...card, name: 'named' });",
      "plain.mjs": "export default (card) => card;",
    });
    expect(await (await loadExtendedCard("./named.mjs:extend", dir))({ name: "x" }, { user: null, assistant: {} as never })).toEqual({
      name: "named",
    });
    expect(typeof (await loadExtendedCard("./plain.mjs", dir))).toBe("function");
  });

  it.each([
    [
      "a file that is not JSON",
      { "card.json": "{ nope" },
      "./card.json",
      /a2a\.extended_card "\.\/card\.json": .*card\.json is not valid JSON/,
    ],
    ["a JSON array", { "card.json": "[]" }, "./card.json", /a2a\.extended_card "\.\/card\.json": expected a JSON object/],
    ["skills without ids", { "card.json": '{"skills":[{"name":"x"}]}' }, "./card.json", /skills\[0\] must be an object with a string id/],
    [
      "an export that is not a function",
      { "card.mjs": "export const card = {};" },
      "./card.mjs:card",
      /export "card" of .*card\.mjs is not a function/,
    ],
    ["a missing export", { "card.mjs": "export const card = {};" }, "./card.mjs:other", /export "other" of .*card\.mjs is not a function/],
  ])("refuses %s with the setting named", async (_label, files, spec, message) => {
    const dir = project(files);
    const error = await loadExtendedCard(spec, dir).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidInputError);
    expect((error as Error).message).toMatch(message);
  });
});
