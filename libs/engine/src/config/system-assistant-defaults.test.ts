import { describe, expect, it } from "vitest";
import { InvalidInputError } from "@agent-server/core";
import { systemAssistantDefaultsFromEnv } from "./system-assistant-defaults.js";

describe("systemAssistantDefaultsFromEnv (LANGGRAPH_CONFIG)", () => {
  it("keys defaults by graph id and takes `context` out of the config", () => {
    const defaults = systemAssistantDefaultsFromEnv(
      JSON.stringify({
        agent: { configurable: { model_name: "openai" }, tags: ["a"] },
        runtime: { context: { model: "unknown" }, configurable: { x: 1 } },
      }),
    );
    expect(defaults).toEqual({
      agent: { config: { configurable: { model_name: "openai" }, tags: ["a"] } },
      runtime: { config: { configurable: { x: 1 } }, context: { model: "unknown" } },
    });
  });

  it("absent or blank means no defaults", () => {
    expect(systemAssistantDefaultsFromEnv(undefined)).toEqual({});
    expect(systemAssistantDefaultsFromEnv("  ")).toEqual({});
  });

  it("refuses what is not JSON, or not an object of objects, naming the variable", () => {
    expect(() => systemAssistantDefaultsFromEnv("{agent:")).toThrow(InvalidInputError);
    expect(() => systemAssistantDefaultsFromEnv("{agent:")).toThrow(/^LANGGRAPH_CONFIG is not valid JSON/);
    expect(() => systemAssistantDefaultsFromEnv("[1]")).toThrow(/LANGGRAPH_CONFIG must be a JSON object/);
    expect(() => systemAssistantDefaultsFromEnv('{"agent": "openai"}')).toThrow(/LANGGRAPH_CONFIG must be a JSON object.* at "agent"/);
  });
});
