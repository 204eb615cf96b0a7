import { basename, dirname, extname, join, relative, resolve } from "node:path";
import ts from "typescript";
import { buildGenerator } from "typescript-json-schema";
import type { GraphSchemaSet, JsonSchema } from "./types.js";

/** One graph to analyse: the module that exports it, and the project folder (where a tsconfig.json may be). */
export interface StaticTarget {
  sourceFile: string;
  exportName: string;
  projectDir: string;
}

const KINDS = { state: "State", input: "Input", output: "Output", config: "Config" } as const;

/**
 * Type aliases that turn a graph export's TypeScript type into the four plain object types whose JSON
 * schemas the API reports. Written beside the graph (so its imports resolve from the graph's own
 * project) as a file that exists only in the compiler host, never on disk.
 *
 * - the export may be a graph, a StateGraph (compiled), a promise of either, or a factory of either;
 * - state: the compiled graph's input type (the update a client sends, all keys optional);
 * - input/output/config: the builder's input (update), output (full state) and config definitions;
 * - message-like values are reported as `BaseMessage` (their union of classes has no useful schema),
 *   `Overwrite` wrappers are dropped, and nesting stops at three levels (state types can be recursive).
 */
function analysisSource(moduleSpecifier: string, exportName: string, prefix: string): string {
  const exported = `typeof import(${JSON.stringify(moduleSpecifier)})[${JSON.stringify(exportName)}]`;
  return `
import type { BaseMessage } from "@langchain/core/messages";
import type { StateDefinition, StateType, UpdateType } from "@langchain/langgraph";

type Settled<T> = T extends (...args: any[]) => infer R ? Awaited<R> : Awaited<T>;
type Built<T> = T extends { compile(...args: any[]): infer C } ? C : T;
type Graph = Built<Settled<${exported}>>;

type IsAny<T> = 0 extends 1 & T ? true : false;
type Same<A, B> = (<X>() => X extends A ? 1 : 2) extends <X>() => X extends B ? 1 : 2 ? true : false;
type Unwrapped<T> = Exclude<T, { __overwrite__: any }>;
type AsMessage<T> = T extends BaseMessage ? BaseMessage : never;
type AsMessages<T> = T extends Array<infer E> ? (Same<AsMessage<E>, BaseMessage> extends true ? BaseMessage[] : never) : never;
type Plain<T, Depth extends 0[] = []> = Depth extends [0, 0, 0]
  ? any
  : T extends unknown
    ? {
        [K in keyof T]: IsAny<T[K]> extends true
          ? T[K]
          : Same<AsMessages<Unwrapped<T[K]>>, BaseMessage[]> extends true
            ? BaseMessage[]
            : Same<AsMessage<Unwrapped<T[K]>>, BaseMessage> extends true
              ? BaseMessage
              : Plain<Unwrapped<T[K]>, [0, ...Depth]>;
      }
    : never;
type Known<T> = IsAny<T> extends true ? never : T;

type RunTypes<G> = G extends { RunInput: infer I } ? I : G extends { "~InputType": infer I } ? I : never;
type BuilderTypes<G> = G extends {
  builder: {
    _inputDefinition: infer I extends StateDefinition;
    _outputDefinition: infer O extends StateDefinition;
    _configSchema?: infer C extends StateDefinition | undefined;
  };
}
  ? { input: UpdateType<I>; output: StateType<O>; config: UpdateType<Exclude<C, undefined>> }
  : never;

export type ${prefix}${KINDS.state} = Plain<RunTypes<Graph>>;
export type ${prefix}${KINDS.input} = Plain<Known<BuilderTypes<Graph>["input"]>>;
export type ${prefix}${KINDS.output} = Plain<Known<BuilderTypes<Graph>["output"]>>;
export type ${prefix}${KINDS.config} = Plain<Known<BuilderTypes<Graph>["config"]>>;
`;
}

/**
 * JSON schemas of graphs' state, input, output and config, from their TypeScript source: one compiler
 * program for all targets, type aliases evaluated by the checker, then typescript-json-schema. Synchronous
 * and CPU-heavy (seconds): run it off the main thread. A target that cannot be analysed gets null.
 */
export function extractStaticSchemas(targets: StaticTarget[]): (GraphSchemaSet | null)[] {
  if (targets.length === 0) return [];
  const options = compilerOptions(targets[0].projectDir);
  const virtualFiles = new Map<string, string>();
  const prefixes = targets.map((target, index) => {
    const prefix = `AgentServerGraph${index}`;
    const file = join(dirname(target.sourceFile), `__agent_server_schemas_${index}__.mts`);
    virtualFiles.set(file, analysisSource(importSpecifier(target.sourceFile), target.exportName, prefix));
    return prefix;
  });
  const host = ts.createCompilerHost(options);
  const { getSourceFile, fileExists, readFile } = host;
  host.getSourceFile = (fileName, languageVersion, ...rest) => {
    const text = virtualFiles.get(fileName);
    return text !== undefined ? ts.createSourceFile(fileName, text, languageVersion) : getSourceFile.call(host, fileName, languageVersion, ...rest);
  };
  host.fileExists = (fileName) => virtualFiles.has(fileName) || fileExists.call(host, fileName);
  host.readFile = (fileName) => virtualFiles.get(fileName) ?? readFile.call(host, fileName);

  const program = ts.createProgram([...virtualFiles.keys()], options, host);
  // Type errors in the project do not stop the analysis: what the checker resolved is still reported.
  const generator = buildGenerator(program, { ignoreErrors: true }, [...virtualFiles.keys()]);
  if (!generator) return targets.map(() => null);
  return prefixes.map((prefix) => {
    const schemaOf = (kind: string): JsonSchema | null => {
      try {
        const schema = generator.getSchemaForSymbol(`${prefix}${kind}`) as unknown as JsonSchema;
        // `any` (an export that is not there, a type the checker could not resolve) says nothing.
        return Object.keys(schema).some((key) => key !== "$schema") ? readableRefs(schema) : null;
      } catch {
        return null;
      }
    };
    const result: GraphSchemaSet = {
      state: schemaOf(KINDS.state),
      input: schemaOf(KINDS.input),
      output: schemaOf(KINDS.output),
      config: schemaOf(KINDS.config),
    };
    return Object.values(result).some((schema) => schema !== null) ? result : null;
  });
}

/** The project's tsconfig.json (not one above the project), with what the analysis needs on top. */
function compilerOptions(projectDir: string): ts.CompilerOptions {
  let options: ts.CompilerOptions = {};
  const configPath = ts.findConfigFile(projectDir, ts.sys.fileExists, "tsconfig.json");
  if (configPath && !relative(resolve(projectDir), dirname(configPath)).startsWith("..")) {
    const read = ts.readConfigFile(configPath, ts.sys.readFile);
    if (!read.error) options = ts.parseJsonConfigFileContent(read.config, ts.sys, dirname(configPath)).options;
  }
  const moduleOptions =
    options.module === undefined && options.moduleResolution === undefined
      ? { module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext }
      : {};
  return {
    target: ts.ScriptTarget.ES2022,
    ...options,
    ...moduleOptions,
    // strict: `string | null` stays a union; noEmit: nothing is written; allowJs: JavaScript graphs too.
    strict: true,
    noEmit: true,
    allowJs: true,
    skipLibCheck: true,
    incremental: false,
    composite: false,
  };
}

/** How the analysis file beside the graph imports it: the extension the compiled module would have. */
function importSpecifier(sourceFile: string): string {
  const ext = extname(sourceFile);
  const emitted = ({ ".ts": ".js", ".tsx": ".js", ".mts": ".mjs", ".cts": ".cjs" } as Record<string, string>)[ext] ?? ext;
  return `./${basename(sourceFile, ext)}${emitted}`;
}

const IMPORT_QUALIFIER = /import\("[^"]*"(?:,\s*\{[^()]*\})?\)\./g;
const DEFINITIONS = "#/definitions/";

/**
 * typescript-json-schema names a type from another module `import("/abs/path/to/module").Name` and
 * URI-encodes references. Report definitions by their type name, and references unencoded, as the
 * official server does (`#/definitions/BaseMessage<...>`); a name that two definitions would share
 * keeps its qualified form.
 */
function readableRefs(schema: JsonSchema): JsonSchema {
  const definitions = schema.definitions as Record<string, unknown> | undefined;
  const renamed = new Map<string, string>();
  if (definitions) {
    const taken = new Set(Object.keys(definitions));
    for (const key of Object.keys(definitions)) {
      const name = key.replace(IMPORT_QUALIFIER, "");
      if (name === key || taken.has(name)) continue;
      taken.add(name);
      renamed.set(key, name);
    }
  }
  return JSON.parse(
    JSON.stringify(schema, function (this: unknown, key: string, value: unknown) {
      if (key === "$ref" && typeof value === "string" && value.startsWith(DEFINITIONS)) {
        const name = safeDecode(value.slice(DEFINITIONS.length));
        return DEFINITIONS + (renamed.get(name) ?? name);
      }
      if (key === "definitions" && value === definitions && definitions) {
        return Object.fromEntries(Object.entries(definitions).map(([name, definition]) => [renamed.get(name) ?? name, definition]));
      }
      return value;
    }),
  ) as JsonSchema;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
