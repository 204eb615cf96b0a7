import { readFile } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { parseEnv } from "node:util";
import { z } from "zod";
import { InvalidInputError } from "@agent-server/core";
import { MAX_RUN_TIMEOUT_SECONDS } from "../runs/run-timeout.js";
import { A2AConfigSchema } from "./a2a.js";
import { GraphEntrySchema } from "./graph-entry.js";
import { HttpCorsSchema } from "./http-cors.js";
import { McpConfigSchema } from "./mcp.js";
import { StoreIndexSchema } from "../store-index/config.js";
import { CheckpointerTtlSchema, StoreTtlSchema } from "./ttl.js";
import { WebhooksConfigSchema } from "./webhooks.js";

/**
 * `langgraph.json`, read the way `langgraphjs dev` reads it. Unknown keys are kept (the CLI and later
 * features read more of them); only the keys the engine acts on are validated.
 */
export const LangGraphConfigSchema = z.looseObject({
  graphs: z.record(z.string(), GraphEntrySchema),
  env: z.union([z.string(), z.record(z.string(), z.string())]).optional(),
  node_version: z.string().optional(),
  auth: z.looseObject({ path: z.string().optional() }).optional(),
  http: z
    .looseObject({
      app: z.string().optional(),
      cors: HttpCorsSchema.optional(),
      /** Largest request body in bytes; larger ones answer 413 (default 25 MiB, docs/limits.md). */
      max_body_size: z.number().int().positive().optional(),
      /** Removes the `/mcp` endpoint (it answers 404 like any unknown route), as on the official server. */
      disable_mcp: z.boolean().optional(),
      /** Removes `GET /metrics` (Prometheus) and everything that feeds it (docs/operations.md, "Metrics"). */
      disable_metrics: z.boolean().optional(),
      /** `/metrics` behind the project's auth (`auth.path`) like any route; default: exempt, as `/ok` is. */
      metrics_auth: z.boolean().optional(),
      /** Serves the `/inspector` page (default: on in `dev`, off in `serve`); `--inspector`/`--no-inspector` win. */
      inspector: z.boolean().optional(),
    })
    .optional(),
  /** Generative UI: `{ "<agent name>": "./path/ui.tsx" }`, bundled for the browser and served under /ui. */
  ui: z.record(z.string(), z.string()).optional(),
  /** `shared`: packages the page provides to UI bundles besides react, react-dom and the SDK. */
  ui_config: z.looseObject({ shared: z.array(z.string()).optional() }).optional(),
  /** A2A: the default assistant, agent card fields, security scheme and extended card (config/a2a.ts). */
  a2a: A2AConfigSchema.optional(),
  /** MCP: which assistants `/mcp` offers as tools, stateless or session mode (config/mcp.ts). */
  mcp: McpConfigSchema.optional(),
  /** A custom storage driver module, `"./driver.ts:export"` (the CLI's `--storage` overrides it). */
  storage: z.looseObject({ path: z.string().optional() }).optional(),
  /** A custom encryptor, `"./enc.ts:encryptor"`, sealing what users send with keys of your own (docs/security.md). */
  encryption: z.looseObject({ path: z.string().optional() }).optional(),
  /**
   * The run time limit in seconds (0: none): a run still executing after it ends `timeout`. `--run-timeout`
   * and `BG_JOB_TIMEOUT_SECS` win over it; default 3600.
   */
  run_timeout: z
    .number({ error: "run_timeout must be a number of seconds" })
    .min(0, "run_timeout must be 0 (no limit) or more seconds")
    .max(MAX_RUN_TIMEOUT_SECONDS, `run_timeout must be at most ${MAX_RUN_TIMEOUT_SECONDS} seconds (~24.8 days)`)
    .optional(),
  /** Outbound webhooks: `url` is the policy user-given webhook and A2A push URLs are checked against. */
  webhooks: WebhooksConfigSchema.optional(),
  /** `ttl`: thread expiry (strategy, default TTL, sweep interval and limit), config/ttl.ts. */
  checkpointer: z.looseObject({ ttl: CheckpointerTtlSchema.nullish() }).optional(),
  /**
   * `ttl`: store item expiry (default TTL, refresh on read, sweep interval), config/ttl.ts; `index`:
   * semantic search (embed, dims, fields), store-index/config.ts.
   */
  store: z.looseObject({ ttl: StoreTtlSchema.nullish(), index: StoreIndexSchema.nullish() }).optional(),
});

export type LangGraphConfig = z.infer<typeof LangGraphConfigSchema>;

export interface LoadedConfig {
  /** Absolute path of langgraph.json. */
  path: string;
  /** Folder every relative path in the config is resolved against. */
  cwd: string;
  config: LangGraphConfig;
  /** Variables from `env` (a file path or an object); applied to process.env by `applyEnv`. */
  env: Record<string, string>;
}

export async function loadLangGraphConfig(configPath: string): Promise<LoadedConfig> {
  const path = resolve(configPath);
  let raw: string;
  try {
    raw = await readFile(path, "utf8");
  } catch (error) {
    throw new InvalidInputError(`cannot read ${path}: ${(error as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch (error) {
    throw new InvalidInputError(`${path} is not valid JSON: ${(error as Error).message}`);
  }
  const parsed = LangGraphConfigSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new InvalidInputError(`${path}: ${issue.path.join(".") || "(root)"}: ${issue.message}`);
  }
  const cwd = dirname(path);
  return { path, cwd, config: parsed.data, env: await readEnv(parsed.data.env, cwd) };
}

async function readEnv(env: LangGraphConfig["env"], cwd: string): Promise<Record<string, string>> {
  if (env === undefined) return {};
  if (typeof env !== "string") return { ...env };
  const file = resolve(cwd, env);
  try {
    return parseEnv(await readFile(file, "utf8")) as Record<string, string>;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return {};
    throw new InvalidInputError(`cannot read env file ${file}: ${(error as Error).message}`);
  }
}

/** Sets the config's env variables that the process environment does not already set. */
export function applyEnv(env: Record<string, string>): void {
  for (const [key, value] of Object.entries(env)) {
    if (process.env[key] === undefined) process.env[key] = value;
  }
}
