import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { InvalidInputError } from "@agent-server/core";
import { loadLangGraphConfig } from "./langgraph-config.js";

/** langgraph.json `a2a`, read through loadLangGraphConfig from real files, as the server reads it. */
describe("langgraph.json a2a block", () => {
  const dirs: string[] = [];
  afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

  function write(a2a: unknown): string {
    const dir = mkdtempSync(join(tmpdir(), "lgcfg-a2a-"));
    dirs.push(dir);
    const path = join(dir, "langgraph.json");
    writeFileSync(path, JSON.stringify({ graphs: { agent: "./agent.ts:graph" }, a2a }));
    return path;
  }

  it("reads the full block: card defaults, agents, security and the extended card", async () => {
    const a2a = {
      default_assistant: "agent",
      card: {
        version: "1.2.0",
        provider: { organization: "Acme", url: "https://acme.example" },
        documentation_url: "https://acme.example/docs",
        icon_url: "http://acme.example/icon.png",
        default_input_modes: ["text/plain"],
        default_output_modes: ["text/plain", "application/json"],
      },
      agents: {
        agent: {
          name: "Acme agent",
          description: "Answers questions about Acme",
          version: "2.0.0",
          skills: [
            {
              id: "faq",
              name: "FAQ",
              description: "Answers product questions",
              tags: ["faq"],
              examples: ["What does Acme sell?"],
              input_modes: ["text/plain"],
              output_modes: ["application/json"],
            },
          ],
        },
      },
      security: [
        { scheme: "bearer", bearer_format: "JWT" },
        { scheme: "api_key", in: "header", name: "x-api-key" },
        {
          scheme: "oauth2",
          flows: { client_credentials: { token_url: "https://auth.acme.example/token", scopes: { read: "Read" } } },
          scopes: ["read"],
        },
        { scheme: "openid", openid_connect_url: "https://auth.acme.example/.well-known/openid-configuration" },
      ],
      extended_card: "./card.ts:extendCard",
    };
    const loaded = await loadLangGraphConfig(write(a2a));
    expect(loaded.config.a2a).toEqual(a2a);
  });

  it("takes a single security scheme as well as a list", async () => {
    const loaded = await loadLangGraphConfig(write({ security: { scheme: "basic" } }));
    expect(loaded.config.a2a?.security).toEqual({ scheme: "basic" });
  });

  it.each([
    [
      "a provider URL without a scheme",
      { card: { provider: { organization: "Acme", url: "acme.example" } } },
      /a2a\.card\.provider\.url: must be an absolute http\(s\) URL/,
    ],
    [
      "a documentation URL that is not http(s)",
      { card: { documentation_url: "ftp://acme.example/docs" } },
      /a2a\.card\.documentation_url: must be an absolute http\(s\) URL/,
    ],
    [
      "a relative icon URL",
      { agents: { agent: { icon_url: "/icon.png" } } },
      /a2a\.agents\.agent\.icon_url: must be an absolute http\(s\) URL/,
    ],
    ["a misspelt card key", { card: { documentationUrl: "https://acme.example" } }, /a2a\.card: Unrecognized key: "documentationUrl"/],
    ["a name among the card defaults", { card: { name: "Everyone" } }, /a2a\.card: Unrecognized key: "name"/],
    [
      "a skill without a description",
      { agents: { agent: { skills: [{ id: "s", name: "S" }] } } },
      /a2a\.agents\.agent\.skills\.0\.description/,
    ],
    [
      "two skills with one id",
      { agents: { agent: { skills: [1, 2].map(() => ({ id: "s", name: "S", description: "d" })) } } },
      /a2a\.agents\.agent\.skills\.1\.id: duplicate skill id "s"/,
    ],
    ["an empty agent name", { agents: { agent: { name: "" } } }, /a2a\.agents\.agent\.name: must not be empty/],
    ["an unknown security scheme", { security: { scheme: "jwt" } }, /a2a\.security\.scheme: scheme must be one of "bearer"/],
    ["a security scheme given as a string", { security: "bearer" }, /a2a\.security: expected an object such as \{ "scheme": "bearer" \}/],
    ["an api_key scheme without a name", { security: { scheme: "api_key", in: "header" } }, /a2a\.security\.name: /],
    ["an api_key scheme in the body", { security: { scheme: "api_key", in: "body", name: "k" } }, /a2a\.security\.in: /],
    [
      "a camelCase security key",
      { security: { scheme: "bearer", bearerFormat: "JWT" } },
      /a2a\.security: Unrecognized key: "bearerFormat"/,
    ],
    ["an oauth2 scheme without flows", { security: { scheme: "oauth2", flows: {} } }, /a2a\.security\.flows: give exactly one of/],
    [
      "an oauth2 token URL that is not a URL",
      { security: { scheme: "oauth2", flows: { client_credentials: { token_url: "token" } } } },
      /a2a\.security\.flows\.client_credentials\.token_url: must be an absolute http\(s\) URL/,
    ],
    ["an openid scheme without its URL", { security: { scheme: "openid" } }, /a2a\.security\.openid_connect_url: /],
    [
      "the same scheme twice",
      { security: [{ scheme: "bearer" }, { scheme: "bearer" }] },
      /a2a\.security\.1\.scheme: scheme "bearer" given twice/,
    ],
    ["an empty extended_card", { extended_card: "" }, /a2a\.extended_card: must not be empty/],
    [
      "an export name on a .json extended card",
      { extended_card: "./card.json:card" },
      /a2a\.extended_card: a \.json file takes no export name/,
    ],
  ])("refuses %s, naming the path", async (_label, a2a, message) => {
    const path = write(a2a);
    const error = await loadLangGraphConfig(path).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidInputError);
    expect((error as Error).message).toMatch(message);
    expect((error as Error).message.startsWith(`${path}: `)).toBe(true);
  });
});
