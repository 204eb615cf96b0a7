import { resolve } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { extractStaticSchemas, type StaticGraphSchemas, type StaticTarget } from "./static-schemas.js";

const projectDir = resolve(import.meta.dirname, "../../../test/fixtures/schemas");
const target = (file: string, exportName: string): StaticTarget => ({ sourceFile: resolve(projectDir, file), exportName, projectDir });

const MESSAGE_REF = "#/definitions/BaseMessage<MessageStructure<MessageToolSet>,MessageType>";

describe("extractStaticSchemas (TypeScript source of Annotation.Root graphs)", () => {
  let compiled: StaticGraphSchemas["graph"];
  let builder: StaticGraphSchemas["graph"];
  let pending: StaticGraphSchemas["graph"];
  let factory: StaticGraphSchemas["graph"];
  let typeError: StaticGraphSchemas["graph"];
  let missingExport: StaticGraphSchemas | null;
  let nested: StaticGraphSchemas | null;
  let withoutSubgraphs: StaticGraphSchemas | null;

  // One compiler program for every target, as the server's worker does for graphs asked for together.
  beforeAll(() => {
    const results = extractStaticSchemas([
      target("annotation-graph.mts", "graph"),
      target("annotation-graph.mts", "builder"),
      target("annotation-graph.mts", "pending"),
      target("annotation-graph.mts", "makeGraph"),
      target("type-error-graph.mts", "graph"),
      target("annotation-graph.mts", "noSuchExport"),
      target("nested-graph.mts", "graph"),
    ]);
    [compiled, builder, pending, factory, typeError] = results.slice(0, 5).map((r) => r?.graph ?? null);
    [withoutSubgraphs, missingExport, nested] = [results[0], results[5], results[6]];
  }, 120_000);

  it("reads state, input, output and config types as JSON schemas (draft-07)", () => {
    expect(compiled?.config).toEqual({
      type: "object",
      properties: { model_name: { type: "string" } },
      $schema: "http://json-schema.org/draft-07/schema#",
    });
    expect(compiled?.state).toMatchObject({
      type: "object",
      properties: {
        mode: { type: "string", enum: ["careful", "fast"] },
        note: { type: ["null", "string"] },
        only_in_input: { type: "boolean" },
      },
      $schema: "http://json-schema.org/draft-07/schema#",
    });
    // The output is the output annotation: no input-only key.
    expect(Object.keys(compiled?.output?.properties as object).sort()).toEqual(["limits", "messages", "mode", "note"]);
    expect(compiled?.input?.properties).toHaveProperty("only_in_input");
  });

  it("reports messages as BaseMessage references with readable definition names", () => {
    expect(compiled?.state?.properties).toMatchObject({ messages: { type: "array", items: { $ref: MESSAGE_REF } } });
    const definitions = compiled?.state?.definitions as Record<string, { description?: string; oneOf?: unknown[] }>;
    const message = definitions["BaseMessage<MessageStructure<MessageToolSet>,MessageType>"];
    expect(message.description).toContain("Base class for all types of messages");
    expect(message.oneOf).toEqual([{ $ref: "#/definitions/RemoveMessage" }]);
    // No reference is left URI-encoded or pointing at a definition that is not there.
    const refs = [...JSON.stringify(compiled?.state).matchAll(/"\$ref":"#\/definitions\/((?:[^"\\]|\\.)*)"/g)].map((m) =>
      JSON.parse(`"${m[1]}"`),
    );
    expect(refs.length).toBeGreaterThan(1);
    for (const ref of refs) expect(definitions).toHaveProperty([ref]);
  });

  it("accepts a StateGraph, a promise of a graph and a graph factory as the export", () => {
    for (const other of [builder, pending, factory]) {
      expect(other?.state?.properties).toEqual(compiled?.state?.properties);
      expect(other?.config).toEqual(compiled?.config);
    }
  });

  it("reads a module with type errors elsewhere, and gives null for an export that is not there", () => {
    expect(typeError?.state).toMatchObject({ properties: { topic: { type: "string" }, count: { type: "number" } } });
    expect(missingExport).toBeNull();
  });

  it("finds subgraphs embedded as nodes, at any depth, exported or not, keyed by namespace", () => {
    expect(Object.keys(nested?.subgraphs ?? {}).sort()).toEqual(["r_parent", "r_parent|p_child"]);
    expect(nested?.subgraphs.r_parent.state).toMatchObject({ properties: { parent: { type: "string", enum: ["left", "right"] } } });
    expect(nested?.subgraphs["r_parent|p_child"].state).toMatchObject({ properties: { child: { type: "string", enum: ["one", "two"] } } });
    expect(nested?.graph?.state?.properties).toEqual({ items: { type: "array", items: { type: "string" } } });
    expect(withoutSubgraphs?.subgraphs).toEqual({});
  });
});
