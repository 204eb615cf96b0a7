import { describe, expect, it } from "vitest";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import { GraphRegistry } from "@agent-server/engine";
import { MESSAGE_LIKE_SCHEMA, withMessageLikeDefinitions } from "./message-schema.js";
import { toolInputSchema } from "./tools.js";

/** The echo example (MessagesAnnotation), its input schema read from its TypeScript source as the server reads it. */
async function echoInputSchema() {
  const registry = new GraphRegistry({ checkpointer: undefined, langgraphStore: undefined } as never);
  await registry.load({ echo: "./src/echo.ts:graph" }, new URL("../../../../examples", import.meta.url).pathname);
  return (await registry.schemas("echo", await registry.get("echo", {}))).input!;
}

describe("message-like definitions in tool input schemas", () => {
  it("describes the messages of a MessagesAnnotation graph as chat messages, and checks arguments by that", async () => {
    const source = await echoInputSchema();
    const tool = toolInputSchema(source);
    expect(tool).toMatchObject({ type: "object", properties: { messages: { type: "array" } } });
    const ref = (tool.properties as { messages: { items: { $ref: string } } }).messages.items.$ref;
    const definitions = tool.definitions as Record<string, unknown>;
    expect(definitions[ref.replace("#/definitions/", "")]).toEqual(MESSAGE_LIKE_SCHEMA);
    // The message class's own definitions (RemoveMessage and what it drags in) are gone.
    expect(Object.keys(definitions)).toEqual([ref.replace("#/definitions/", "")]);
    expect(JSON.stringify(tool).length).toBeLessThan(JSON.stringify(source).length / 2);

    const validate = new AjvJsonSchemaValidator().getValidator(tool as never);
    expect(validate({ messages: [{ role: "user", content: "hi" }] }).valid).toBe(true);
    expect(validate({ messages: [{ type: "human", content: [{ type: "text", text: "hi" }] }] }).valid).toBe(true);
    expect(validate({ messages: ["hi"] }).valid).toBe(true);
    expect(validate({ messages: [{ role: "user" }] }).valid).toBe(false);
    expect(validate({ messages: "hi" }).valid).toBe(false);
  }, 60_000);

  it("leaves schemas without message definitions as they are", () => {
    const plain = {
      type: "object",
      properties: { a: { $ref: "#/definitions/A" } },
      definitions: { A: { type: "string" }, B: { type: "number" } },
    };
    expect(withMessageLikeDefinitions(plain)).toBe(plain);
    expect(withMessageLikeDefinitions({ type: "object" })).toEqual({ type: "object" });
  });
});
