import type { CompiledGraph } from "@agent-server/engine";

export type JsonSchema = Record<string, unknown>;

export interface ExtractedSchemas {
  input: JsonSchema | null;
  output: JsonSchema | null;
  state: JsonSchema | null;
  config: JsonSchema | null;
}

interface GraphBuilderLike {
  _schemaDefinition?: unknown;
  _inputDefinition?: unknown;
  _outputDefinition?: unknown;
  _configSchema?: unknown;
}

const NONE: ExtractedSchemas = { input: null, output: null, state: null, config: null };

/**
 * JSON schemas of a graph's input, output, state and config, from what LangGraph exposes at run time.
 *
 * The official server extracts them from the graph's TypeScript types with a compiler-based parser; we
 * do not. What we do, in order:
 * 1. `StateSchema` and zod state definitions: LangGraph's own `@langchain/langgraph/zod/schema` helpers
 *    (the same first tiers the official server tries), which yield fully typed schemas.
 * 2. `Annotation.Root` definitions: their channel names become the object's properties, each with the
 *    empty (any-value) schema, since annotations carry no runtime type information.
 * 3. Anything else (a bare Pregel, the functional API): null for every schema, which the SDK's
 *    `GraphSchema` type allows ("missing if unable to generate").
 */
export async function extractGraphSchemas(graph: CompiledGraph): Promise<ExtractedSchemas> {
  const builder = (graph as unknown as { builder?: GraphBuilderLike }).builder;
  if (!builder || typeof builder !== "object") return NONE;
  const typed = await typedSchemas(graph);
  const state = typed?.state ?? fromAnnotation(builder._schemaDefinition);
  return {
    state,
    input: typed?.input ?? fromAnnotation(builder._inputDefinition) ?? state,
    output: typed?.output ?? fromAnnotation(builder._outputDefinition) ?? state,
    config: typed?.config ?? fromAnnotation(builder._configSchema),
  };
}

async function typedSchemas(graph: CompiledGraph): Promise<Partial<ExtractedSchemas> | undefined> {
  try {
    const zodSchema = await import("@langchain/langgraph/zod/schema");
    const pick = (fn: (g: unknown) => unknown): JsonSchema | null => {
      try {
        const schema = fn(graph);
        return schema && typeof schema === "object" ? (schema as JsonSchema) : null;
      } catch {
        return null;
      }
    };
    const result = {
      // As the official server: the state schema is the update (partial) schema, which is what a client sends.
      state: pick(zodSchema.getUpdateTypeSchema),
      input: pick(zodSchema.getInputTypeSchema),
      output: pick(zodSchema.getOutputTypeSchema),
      config: pick(zodSchema.getConfigTypeSchema),
    };
    return Object.values(result).some((s) => s !== null) ? result : undefined;
  } catch {
    return undefined;
  }
}

/** An `Annotation.Root(...)` spec (a plain object of channels) as an object schema naming its keys. */
function fromAnnotation(definition: unknown): JsonSchema | null {
  if (!definition || typeof definition !== "object" || Array.isArray(definition)) return null;
  const keys = Object.keys(definition).filter((key) => !key.startsWith("__"));
  if (keys.length === 0) return null;
  return { type: "object", properties: Object.fromEntries(keys.map((key) => [key, {}])) };
}
