import { z } from "zod";
import { InvalidInputError } from "@agent-server/core";
import type { RunnableConfig } from "../graphs/types.js";

/** What a graph's system assistant starts with: its default run `config` and runtime `context`. */
export interface SystemAssistantDefaults {
  config: RunnableConfig;
  context?: unknown;
}

const LangGraphConfigEnvSchema = z.record(z.string(), z.record(z.string(), z.unknown()));

/**
 * `LANGGRAPH_CONFIG`, as the official server reads it: a JSON object keyed by graph id whose values are
 * run configs, where a `context` key is the runtime context rather than part of the config, e.g.
 * `{"agent": {"configurable": {"model_name": "openai"}}, "runtime": {"context": {"model": "x"}}}`.
 * It seeds system assistants when they are created; existing ones are left as they are. Absent or
 * empty: no defaults. Anything else that is not such an object stops the start with a clear error.
 */
export function systemAssistantDefaultsFromEnv(raw: string | undefined): Record<string, SystemAssistantDefaults> {
  if (raw === undefined || raw.trim() === "") return {};
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch (error) {
    throw new InvalidInputError(`LANGGRAPH_CONFIG is not valid JSON: ${(error as Error).message}`);
  }
  const parsed = LangGraphConfigEnvSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue.path.length ? ` at "${issue.path.join(".")}"` : "";
    throw new InvalidInputError(`LANGGRAPH_CONFIG must be a JSON object of graph id -> config object${where}: ${issue.message}`);
  }
  return Object.fromEntries(
    Object.entries(parsed.data).map(([graphId, { context, ...config }]) => [
      graphId,
      context === undefined ? { config } : { config, context },
    ]),
  );
}
