import { describe, expect, it } from "vitest";
import { LangGraphConfigSchema } from "./langgraph-config.js";
import { unsupportedConfigKeys } from "./unsupported-keys.js";

const parse = (json: unknown) => LangGraphConfigSchema.parse(json);

describe("unsupportedConfigKeys", () => {
  it("names runtime settings the server does not act on, as dotted paths", () => {
    const config = parse({
      graphs: { agent: "./agent.ts:graph" },
      store: { index: { dims: 1536, embed: "openai:text-embedding-3-small" } },
      checkpointer: { ttl: { default_ttl: 60 }, serde: { pickle_fallback: false } },
      http: { app: "./app.ts:app", cors: { allow_origins: ["*"] }, max_body_size: 1024, disable_assistants: true, mount_prefix: "/api" },
      auth: { path: "./auth.ts:auth", openapi: {} },
    });
    expect(unsupportedConfigKeys(config).sort()).toEqual([
      "auth.openapi",
      "checkpointer.serde",
      "http.disable_assistants",
      "http.mount_prefix",
    ]);
  });

  it("says nothing of the keys it honours or of build-only keys", () => {
    const config = parse({
      $schema: "https://langgra.ph/schema.json",
      node_version: "20",
      dependencies: ["."],
      dockerfile_lines: [],
      image_distro: "wolfi",
      graphs: { agent: { path: "./agent.ts:graph", description: "d" } },
      env: ".env",
      auth: { path: "./auth.ts:auth" },
      http: { app: "./app.ts:app" },
      ui: { agent: "./ui.tsx" },
      ui_config: { shared: ["x"] },
      a2a: {
        default_assistant: "agent",
        grpc_port: 50051,
        card: { version: "1.0.0" },
        agents: { agent: { name: "Agent" } },
        security: { scheme: "bearer" },
        extended_card: "./extended-card.json",
      },
      storage: { path: "./driver.ts:createStorage" },
      checkpointer: { ttl: { strategy: "keep_latest", default_ttl: 43200, sweep_interval_minutes: 5, sweep_limit: 100 } },
      store: { ttl: { default_ttl: 0.05, refresh_on_read: false, sweep_interval_minutes: 60 } },
    });
    expect(unsupportedConfigKeys(config)).toEqual([]);
    expect(unsupportedConfigKeys(parse({ graphs: {}, storage: { path: "./d.ts", pool: 3 } }))).toEqual(["storage.pool"]);
    expect(unsupportedConfigKeys(parse({ graphs: {}, a2a: { default_assistant: "agent", signing_key: "./k.pem" } }))).toEqual([
      "a2a.signing_key",
    ]);
  });
});
