import { createRequire } from "node:module";
import { isAbsolute, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { InvalidInputError } from "@agent-server/core";

/** What an index needs of an embedding model: LangChain's `Embeddings` methods. */
export interface Embedder {
  embedDocuments(texts: string[]): Promise<unknown>;
  embedQuery(text: string): Promise<unknown>;
}

/**
 * `provider:model` -> the LangChain package and class that embed with it, imported from the project's
 * own dependencies (as LangChain's `init_embeddings` providers on the Python server).
 */
export const EMBEDDING_PROVIDERS: Record<string, { pkg: string; className: string }> = {
  openai: { pkg: "@langchain/openai", className: "OpenAIEmbeddings" },
  azure_openai: { pkg: "@langchain/openai", className: "AzureOpenAIEmbeddings" },
  cohere: { pkg: "@langchain/cohere", className: "CohereEmbeddings" },
  mistralai: { pkg: "@langchain/mistralai", className: "MistralAIEmbeddings" },
  "google-genai": { pkg: "@langchain/google-genai", className: "GoogleGenerativeAIEmbeddings" },
  google_genai: { pkg: "@langchain/google-genai", className: "GoogleGenerativeAIEmbeddings" },
  "google-vertexai": { pkg: "@langchain/google-vertexai", className: "VertexAIEmbeddings" },
  google_vertexai: { pkg: "@langchain/google-vertexai", className: "VertexAIEmbeddings" },
  ollama: { pkg: "@langchain/ollama", className: "OllamaEmbeddings" },
  bedrock: { pkg: "@langchain/aws", className: "BedrockEmbeddings" },
};

/** A file spec names a module of the project: a relative or absolute path, or a name with a JS/TS extension. */
export function isFileSpec(embed: string): boolean {
  const path = splitSpec(embed).path;
  return path.startsWith(".") || isAbsolute(path) || /\.(m|c)?(t|j)sx?$/.test(path);
}

function splitSpec(embed: string): { path: string; name: string } {
  const colon = embed.lastIndexOf(":");
  // "C:\\..." and a spec without ":export" keep the whole string as the path.
  if (colon <= 1) return { path: embed, name: "default" };
  return { path: embed.slice(0, colon), name: embed.slice(colon + 1) || "default" };
}

/**
 * The embedder langgraph.json `store.index.embed` names, relative to the project folder `cwd`. A file's
 * export may be a function `(texts: string[]) => Promise<number[][]>` (queries are embedded as one text)
 * or an object with `embedDocuments` and `embedQuery` (a LangChain `Embeddings`). Anything missing stops
 * the start with an `InvalidInputError` naming it.
 */
export async function loadEmbedder(embed: string, cwd: string): Promise<Embedder> {
  return isFileSpec(embed) ? loadFromFile(embed, cwd) : loadFromProvider(embed, cwd);
}

async function loadFromFile(embed: string, cwd: string): Promise<Embedder> {
  const { path, name } = splitSpec(embed);
  const file = resolve(cwd, path);
  let module: Record<string, unknown>;
  try {
    if (/\.(m|c)?tsx?$/.test(file)) {
      const { tsImport } = await import("tsx/esm/api");
      module = (await tsImport(pathToFileURL(file).href, import.meta.url)) as Record<string, unknown>;
    } else module = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
  } catch (error) {
    throw new InvalidInputError(`store.index.embed "${embed}": cannot import ${file}: ${(error as Error).message}`);
  }
  const value = module[name];
  if (typeof value === "function" && !/^class\b/.test(Function.prototype.toString.call(value))) {
    const fn = value as (texts: string[]) => Promise<unknown>;
    return {
      embedDocuments: (texts) => fn(texts),
      embedQuery: async (text) => {
        const vectors = await fn([text]);
        return Array.isArray(vectors) ? vectors[0] : vectors;
      },
    };
  }
  if (isEmbeddings(value)) return value;
  const found = value === undefined ? "nothing" : typeof value === "function" ? "a class" : `a ${typeof value}`;
  throw new InvalidInputError(
    `store.index.embed "${embed}": ${file} exports ${found} as "${name}"; expected a function (texts: string[]) => Promise<number[][]> or an Embeddings object (embedDocuments, embedQuery)`,
  );
}

async function loadFromProvider(embed: string, cwd: string): Promise<Embedder> {
  const colon = embed.indexOf(":");
  const provider = colon > 0 ? embed.slice(0, colon) : "";
  const model = colon > 0 ? embed.slice(colon + 1) : "";
  const known = EMBEDDING_PROVIDERS[provider];
  if (!known || !model) {
    throw new InvalidInputError(
      `store.index.embed "${embed}": expected "./file.ts:export" or "provider:model" with provider one of ${Object.keys(EMBEDDING_PROVIDERS).join(", ")}`,
    );
  }
  let entry: string;
  try {
    entry = createRequire(join(cwd, "package.json")).resolve(known.pkg);
  } catch {
    throw new InvalidInputError(
      `store.index.embed "${embed}" needs the package ${known.pkg}, which is not installed in ${cwd}: run npm install ${known.pkg}`,
    );
  }
  const module = (await import(pathToFileURL(entry).href)) as Record<string, unknown>;
  const Class = module[known.className] as (new (fields: Record<string, unknown>) => unknown) | undefined;
  if (typeof Class !== "function") throw new InvalidInputError(`store.index.embed "${embed}": ${known.pkg} has no ${known.className}`);
  const instance = new Class({ model });
  if (!isEmbeddings(instance)) throw new InvalidInputError(`store.index.embed "${embed}": ${known.className} is not an Embeddings`);
  return instance;
}

function isEmbeddings(value: unknown): value is Embedder {
  const candidate = value as Partial<Embedder> | null;
  return (
    candidate !== null &&
    typeof candidate === "object" &&
    typeof candidate.embedDocuments === "function" &&
    typeof candidate.embedQuery === "function"
  );
}
