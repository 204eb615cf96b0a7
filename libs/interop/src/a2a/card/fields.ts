import type { AgentProvider, AgentSkill } from "@a2a-js/sdk";
import type { Assistant } from "@agent-server/core";
import { A2AAgentCardSchema, type A2AAgentCardConfig, type A2ASkillConfig } from "@agent-server/engine";
import type { AgentCardOptions } from "./options.js";

const DEFAULT_INPUT_MODES = ["text/plain"];
const DEFAULT_OUTPUT_MODES = ["text/plain", "application/json"];

/** The descriptive fields of one assistant's card, every one resolved. */
export interface CardFields {
  name: string;
  description: string;
  version: string;
  provider: AgentProvider | undefined;
  documentationUrl: string | undefined;
  iconUrl: string | undefined;
  defaultInputModes: string[];
  defaultOutputModes: string[];
  skills: AgentSkill[];
}

/**
 * The card fields of `assistant`, each from the first place that sets it:
 * 1. the assistant's own `metadata.a2a` (so an assistant created through the API carries its card),
 * 2. `a2a.agents[<assistant id>]`, 3. `a2a.agents[<graph id>]`, 4. `a2a.card`,
 * 5. the assistant: name (a system assistant's is its graph id), description — else the graph's
 *    langgraph.json description, else a sentence naming the graph (never the assistant's uuid) — and
 *    version; one skill for the graph.
 */
export function cardFields(assistant: Assistant, options: AgentCardOptions): CardFields {
  const config = options.config;
  const layers = [
    ownCardFields(assistant, options.warn),
    config?.agents?.[assistant.assistant_id],
    config?.agents?.[assistant.graph_id],
    config?.card,
  ].filter((layer): layer is A2AAgentCardConfig => layer !== undefined);
  const pick = <K extends keyof A2AAgentCardConfig>(key: K): A2AAgentCardConfig[K] | undefined =>
    layers.find((layer) => layer[key] !== undefined)?.[key];

  const name = pick("name") ?? (assistant.name || assistant.graph_id);
  const description =
    pick("description") ||
    assistant.description ||
    options.graphDescription?.(assistant.graph_id) ||
    `Runs the LangGraph graph "${assistant.graph_id}".`;
  const modes = { input: pick("default_input_modes") ?? DEFAULT_INPUT_MODES, output: pick("default_output_modes") ?? DEFAULT_OUTPUT_MODES };
  const configured = pick("skills");
  const skills = configured
    ? configured.map((skill) => skillOf(skill, modes))
    : [skillOf({ id: assistant.graph_id, name, description, tags: ["langgraph", assistant.graph_id] }, modes)];
  const provider = pick("provider");
  return {
    name,
    description,
    version: pick("version") ?? String(assistant.version ?? 1),
    provider: provider ? { organization: provider.organization, url: provider.url } : undefined,
    documentationUrl: pick("documentation_url"),
    iconUrl: pick("icon_url"),
    defaultInputModes: [...modes.input],
    defaultOutputModes: [...modes.output],
    skills,
  };
}

/** Modes are spelt out on every skill (a client need not know that empty means "the card's defaults"). */
function skillOf(skill: A2ASkillConfig, modes: { input: string[]; output: string[] }): AgentSkill {
  return {
    id: skill.id,
    name: skill.name,
    description: skill.description,
    tags: [...(skill.tags ?? [])],
    examples: [...(skill.examples ?? [])],
    inputModes: [...(skill.input_modes ?? modes.input)],
    outputModes: [...(skill.output_modes ?? modes.output)],
    securityRequirements: [],
  };
}

/**
 * The assistant's `metadata.a2a`, field by field: metadata comes through the assistants API unchecked,
 * so a field that is not a valid card field is left out (and reported) rather than failing every card
 * and A2A request of the assistant, and one bad field does not drop the good ones.
 */
function ownCardFields(assistant: Assistant, warn: AgentCardOptions["warn"]): A2AAgentCardConfig {
  const raw = assistant.metadata?.a2a;
  if (raw === undefined || raw === null) return {};
  const report = (path: string, message: string) =>
    warn?.(
      { assistant_id: assistant.assistant_id, assistant_version: assistant.version, field: path },
      `Assistant ${assistant.assistant_id}: ${path} ${message}; left out of its agent card`,
    );
  if (typeof raw !== "object" || Array.isArray(raw)) {
    report("metadata.a2a", "is not an object");
    return {};
  }
  const shape = A2AAgentCardSchema.shape as Record<string, (typeof A2AAgentCardSchema.shape)[keyof A2AAgentCardConfig] | undefined>;
  const fields: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(raw as Record<string, unknown>)) {
    const schema = Object.hasOwn(shape, key) ? shape[key] : undefined;
    if (!schema) {
      report(`metadata.a2a.${key}`, "is not a card field");
      continue;
    }
    const parsed = schema.safeParse(value);
    if (parsed.success) fields[key] = parsed.data;
    else {
      const issue = parsed.error.issues[0]!;
      report(["metadata.a2a", key, ...issue.path.map(String)].join("."), issue.message);
    }
  }
  return fields as A2AAgentCardConfig;
}
