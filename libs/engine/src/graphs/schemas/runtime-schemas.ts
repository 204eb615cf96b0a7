import { createRequire } from "node:module";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import type { ModuleScope } from "../load-graph.js";
import type { CompiledGraph } from "../types.js";
import { NO_SCHEMAS, type GraphSchemaSet, type JsonSchema } from "./types.js";

interface GraphBuilderLike {
  _schemaDefinition?: unknown;
  _inputDefinition?: unknown;
  _outputDefinition?: unknown;
  _configSchema?: unknown;
  _schemaRuntimeDefinition?: unknown;
  _inputRuntimeDefinition?: unknown;
  _outputRuntimeDefinition?: unknown;
  _configRuntimeSchema?: unknown;
}

interface StateSchemaLike {
  getJsonSchema(): JsonSchema;
  getInputJsonSchema(): JsonSchema;
}

/** Where a graph module came from, so its own copy of LangGraph's zod metadata registry can be found. */
export interface GraphOrigin {
  sourceFile: string;
  scope: ModuleScope;
}

type ZodSchemaModule = typeof import("@langchain/langgraph/zod/schema");
type ZodRegistry = NonNullable<Parameters<ZodSchemaModule["getUpdateTypeSchema"]>[1]>;

/** LangGraph marks "the input is the state, made partial" with this symbol instead of a definition. */
const PARTIAL_STATE = Symbol.for("langgraph.state.partial");

/**
 * The schemas LangGraph can produce at run time, tried in the official server's order: a `StateSchema`
 * (with its fields' `jsonSchemaExtra`), zod through LangGraph's metadata registry (`withLangGraph`
 * reducers and `jsonSchemaExtra`), plain zod. Undefined when the graph has none of these (an
 * `Annotation.Root` state, a bare Pregel): its types then have to come from the source.
 */
export async function runtimeGraphSchemas(graph: CompiledGraph, origin?: GraphOrigin): Promise<GraphSchemaSet | undefined> {
  const builder = (graph as unknown as { builder?: GraphBuilderLike }).builder;
  if (!builder || typeof builder !== "object") return undefined;
  return fromStateSchema(builder) ?? (await fromZodRegistry(graph, builder, origin)) ?? (await fromPlainZod(builder));
}

function isStateSchemaLike(value: unknown): value is StateSchemaLike {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as Partial<StateSchemaLike>).getJsonSchema === "function" &&
    typeof (value as Partial<StateSchemaLike>).getInputJsonSchema === "function"
  );
}

function fromStateSchema(builder: GraphBuilderLike): GraphSchemaSet | undefined {
  const { _schemaRuntimeDefinition: state, _inputRuntimeDefinition: input, _outputRuntimeDefinition: output } = builder;
  if (!isStateSchemaLike(state) && !isStateSchemaLike(input) && !isStateSchemaLike(output)) return undefined;
  const result: GraphSchemaSet = {
    state: isStateSchemaLike(state) ? state.getJsonSchema() : null,
    input: isStateSchemaLike(input)
      ? input.getInputJsonSchema()
      : input === PARTIAL_STATE && isStateSchemaLike(state)
        ? state.getInputJsonSchema()
        : null,
    output: isStateSchemaLike(output) ? output.getJsonSchema() : null,
    config: null,
  };
  return hasAny(result) ? result : undefined;
}

async function fromZodRegistry(graph: CompiledGraph, builder: GraphBuilderLike, origin?: GraphOrigin): Promise<GraphSchemaSet | undefined> {
  try {
    const zodSchema = await import("@langchain/langgraph/zod/schema");
    const registry = (origin && (await graphZodRegistry(builder, origin))) ?? undefined;
    const pick = (fn: (g: unknown, r?: ZodRegistry) => unknown): JsonSchema | null => {
      try {
        const schema = fn(graph, registry);
        return schema && typeof schema === "object" ? (schema as JsonSchema) : null;
      } catch {
        return null;
      }
    };
    const result: GraphSchemaSet = {
      // As the official server: the state schema is the update (partial) schema, what a client sends.
      state: pick(zodSchema.getUpdateTypeSchema),
      input: pick(zodSchema.getInputTypeSchema),
      output: pick(zodSchema.getOutputTypeSchema),
      config: pick(zodSchema.getConfigTypeSchema),
    };
    return hasAny(result) ? result : undefined;
  } catch {
    return undefined;
  }
}

/**
 * `withLangGraph` keeps its metadata in a registry of the `@langchain/langgraph` copy the graph module
 * imported, which is not ours when the project has its own node_modules (or tsx gave the graph its own
 * module instances). Load that copy's registry through the graph's scope; undefined if it cannot be
 * found or knows none of the state's fields (plain zod: any registry gives the same result).
 */
async function graphZodRegistry(builder: GraphBuilderLike, origin: GraphOrigin): Promise<ZodRegistry | undefined> {
  const fields = zodObjectFields(builder._schemaRuntimeDefinition);
  if (fields.length === 0) return undefined;
  for (const url of langgraphZodUrls(origin.sourceFile)) {
    try {
      const module = (await origin.scope(url)) as { schemaMetaRegistry?: ZodRegistry & { has(schema: unknown): boolean } };
      const registry = module.schemaMetaRegistry;
      if (registry && fields.some((field) => registry.has(field))) return registry;
    } catch {
      // That build of the package is not loadable from here: try the next one.
    }
  }
  return undefined;
}

function zodObjectFields(schema: unknown): unknown[] {
  if (!schema || typeof schema !== "object") return [];
  const shape = (schema as { shape?: unknown }).shape;
  return shape && typeof shape === "object" ? Object.values(shape) : [];
}

/** The ESM then CommonJS entry of `@langchain/langgraph/zod` as the graph's own file resolves it. */
function langgraphZodUrls(sourceFile: string): string[] {
  try {
    const require = createRequire(sourceFile);
    const packageJson = require.resolve("@langchain/langgraph/package.json");
    const exported = (JSON.parse(readFileSync(packageJson, "utf8")) as { exports?: Record<string, unknown> }).exports?.["./zod"];
    const urls: string[] = [];
    const esm = entryPath((exported as { import?: unknown } | undefined)?.import);
    if (esm) urls.push(pathToFileURL(join(dirname(packageJson), esm)).href);
    urls.push(pathToFileURL(require.resolve("@langchain/langgraph/zod")).href);
    return urls;
  } catch {
    return [];
  }
}

function entryPath(condition: unknown): string | undefined {
  if (typeof condition === "string") return condition;
  if (condition && typeof condition === "object") return entryPath((condition as { default?: unknown }).default);
  return undefined;
}

async function fromPlainZod(builder: GraphBuilderLike): Promise<GraphSchemaSet | undefined> {
  try {
    const { toJsonSchema } = await import("@langchain/core/utils/json_schema");
    const { isZodSchemaV3, isZodSchemaV4 } = await import("@langchain/core/utils/types");
    const convert = (schema: unknown): JsonSchema | null => {
      if (!schema || !(isZodSchemaV4(schema) || isZodSchemaV3(schema))) return null;
      try {
        return toJsonSchema(schema) as JsonSchema;
      } catch {
        return null;
      }
    };
    const state = convert(builder._schemaRuntimeDefinition);
    const input = convert(builder._inputRuntimeDefinition) ?? (state ? withoutRequired(state) : null);
    const result: GraphSchemaSet = {
      state,
      input,
      output: convert(builder._outputRuntimeDefinition),
      config: convert(builder._configRuntimeSchema),
    };
    return hasAny(result) ? result : undefined;
  } catch {
    return undefined;
  }
}

function withoutRequired(schema: JsonSchema): JsonSchema {
  const { required: _required, ...rest } = schema;
  return rest;
}

function hasAny(schemas: GraphSchemaSet): boolean {
  return Object.values(schemas).some((schema) => schema !== null);
}

/**
 * For a graph without typed definitions at run time: its `Annotation.Root` channel names as object
 * properties of any value (annotations carry no runtime type information).
 */
export function channelSchemas(graph: CompiledGraph): GraphSchemaSet {
  const builder = (graph as unknown as { builder?: GraphBuilderLike }).builder;
  if (!builder || typeof builder !== "object") return NO_SCHEMAS;
  const state = channelObject(builder._schemaDefinition);
  return {
    state,
    input: channelObject(builder._inputDefinition) ?? state,
    output: channelObject(builder._outputDefinition) ?? state,
    config: channelObject(builder._configSchema),
  };
}

function channelObject(definition: unknown): JsonSchema | null {
  if (!definition || typeof definition !== "object" || Array.isArray(definition)) return null;
  const keys = Object.keys(definition).filter((key) => !key.startsWith("__"));
  if (keys.length === 0) return null;
  return { type: "object", properties: Object.fromEntries(keys.map((key) => [key, {}])) };
}
