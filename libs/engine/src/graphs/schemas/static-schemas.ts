import { basename, dirname, extname, join, relative, resolve } from "node:path";
import ts from "typescript";
import { buildGenerator } from "typescript-json-schema";
import { analysisSource, KINDS, type AnalysedGraph } from "./analysis-source.js";
import { findSubgraphCandidates } from "./subgraph-discovery.js";
import type { GraphSchemaSet, JsonSchema } from "./types.js";

/** One graph to analyse: the module that exports it, and the project folder (where a tsconfig.json may be). */
export interface StaticTarget {
  sourceFile: string;
  exportName: string;
  projectDir: string;
}

/** A graph's schemas from source, and those of the subgraphs found in it, keyed by namespace (`a|b`). */
export interface StaticGraphSchemas {
  graph: GraphSchemaSet | null;
  subgraphs: Record<string, GraphSchemaSet>;
}

interface Planned {
  prefix: string;
  /** Subgraph candidates: namespace and alias prefix of each name proposed for it. */
  subgraphs: { namespace: string; prefix: string }[];
}

/**
 * Told of every file the extraction read from disk (the graph modules, their imports, type declarations,
 * package.json files, the tsconfig.json), with its text, or undefined for a file that was looked for and
 * is not there: what a cache of the result has to check.
 */
export type SourceReadListener = (fileName: string, text: string | undefined) => void;

/**
 * JSON schemas of graphs' state, input, output and config, and of their subgraphs, from their TypeScript
 * source: one compiler program for all targets, type aliases evaluated by the checker, then
 * typescript-json-schema. Synchronous and CPU-heavy (seconds): run it off the main thread. A target
 * that cannot be analysed gets null.
 */
export function extractStaticSchemas(targets: StaticTarget[], onRead: SourceReadListener = () => {}): (StaticGraphSchemas | null)[] {
  if (targets.length === 0) return [];
  const readFile = (fileName: string): string | undefined => {
    const text = ts.sys.readFile(fileName);
    onRead(fileName, text);
    return text;
  };
  const options = compilerOptions(targets[0].projectDir, readFile, onRead);
  const virtualFiles = new Map<string, string>();
  const plans = targets.map((target, index) => planTarget(target, index, virtualFiles, readFile));
  const host = ts.createCompilerHost(options);
  const { getSourceFile, fileExists } = host;
  host.getSourceFile = (fileName, languageVersion, ...rest) => {
    const text = virtualFiles.get(fileName);
    return text !== undefined
      ? ts.createSourceFile(fileName, text, languageVersion)
      : getSourceFile.call(host, fileName, languageVersion, ...rest);
  };
  host.fileExists = (fileName) => virtualFiles.has(fileName) || fileExists.call(host, fileName);
  // The host's own getSourceFile reads through this too, so every file of the program is reported.
  host.readFile = (fileName) => virtualFiles.get(fileName) ?? readFile(fileName);

  const analysisFiles = [...virtualFiles.keys()].filter((file) => file.includes(ANALYSIS_FILE_MARK));
  const program = ts.createProgram(analysisFiles, options, host);
  // Type errors in the project do not stop the analysis: what the checker resolved is still reported.
  const generator = buildGenerator(program, { ignoreErrors: true }, analysisFiles);
  if (!generator) return targets.map(() => null);
  const schemasOf = (prefix: string): GraphSchemaSet | null => {
    const schemaOf = (kind: string): JsonSchema | null => {
      try {
        const schema = generator.getSchemaForSymbol(`${prefix}${kind}`) as unknown as JsonSchema;
        // `any` (not a graph, an export that is not there, a type the checker could not resolve) says nothing.
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
  };
  return plans.map((plan) => {
    const graph = schemasOf(plan.prefix);
    if (!graph) return null;
    const subgraphs: Record<string, GraphSchemaSet> = {};
    // Of the names proposed for a node, the first that is a graph is its subgraph.
    for (const { namespace, prefix } of plan.subgraphs) {
      if (subgraphs[namespace]) continue;
      const schemas = schemasOf(prefix);
      if (schemas) subgraphs[namespace] = schemas;
    }
    return { graph, subgraphs };
  });
}

const ANALYSIS_FILE_MARK = "__agent_server_schemas_";

/**
 * Adds the target's analysis file, and, for subgraphs (module-level variables that need not be
 * exported), `export type` lines appended to the graph module's text as the compiler host serves it.
 */
function planTarget(
  target: StaticTarget,
  index: number,
  virtualFiles: Map<string, string>,
  readFile: (fileName: string) => string | undefined,
): Planned {
  const prefix = `AgentServerGraph${index}`;
  const specifier = importSpecifier(target.sourceFile);
  const graphs: AnalysedGraph[] = [
    { prefix, typeExpression: `typeof import(${JSON.stringify(specifier)})[${JSON.stringify(target.exportName)}]` },
  ];
  const planned: Planned = { prefix, subgraphs: [] };
  const sourceText = virtualFiles.get(target.sourceFile) ?? readFile(target.sourceFile);
  if (sourceText !== undefined) {
    const exports: string[] = [];
    for (const candidate of findSubgraphCandidates(target.sourceFile, sourceText, target.exportName)) {
      for (const name of candidate.names) {
        const alias = `${prefix}Subgraph${exports.length}`;
        exports.push(`export type ${alias} = typeof ${name};`);
        graphs.push({ prefix: `${alias}_`, typeExpression: `import(${JSON.stringify(specifier)}).${alias}` });
        planned.subgraphs.push({ namespace: candidate.namespace, prefix: `${alias}_` });
      }
    }
    if (exports.length > 0) virtualFiles.set(target.sourceFile, `${sourceText}\n${exports.join("\n")}\n`);
  }
  virtualFiles.set(join(dirname(target.sourceFile), `${ANALYSIS_FILE_MARK}${index}__.mts`), analysisSource(graphs));
  return planned;
}

/**
 * The project's tsconfig.json (not one above the project), with what the analysis needs on top. Read
 * through `readFile`, the files it extends too; its absence is reported (one created later changes the result).
 */
function compilerOptions(
  projectDir: string,
  readFile: (fileName: string) => string | undefined,
  onRead: SourceReadListener,
): ts.CompilerOptions {
  let options: ts.CompilerOptions = {};
  const configPath = ts.findConfigFile(projectDir, ts.sys.fileExists, "tsconfig.json");
  if (configPath && !relative(resolve(projectDir), dirname(configPath)).startsWith("..")) {
    const read = ts.readConfigFile(configPath, readFile);
    if (!read.error) options = ts.parseJsonConfigFileContent(read.config, { ...ts.sys, readFile }, dirname(configPath)).options;
  } else {
    onRead(join(resolve(projectDir), "tsconfig.json"), undefined);
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
