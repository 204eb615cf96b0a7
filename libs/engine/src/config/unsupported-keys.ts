import type { LangGraphConfig } from "./langgraph-config.js";

/**
 * Keys of langgraph.json that describe how `langgraph build` makes an image. A server that runs the
 * project in place has nothing to do with them, so they are accepted without a word.
 */
const BUILD_KEYS = new Set([
  "dependencies",
  "dockerfile_lines",
  "node_version",
  "python_version",
  "pip_config_file",
  "pip_installer",
  "image_distro",
  "base_image",
  "api_version",
  "keep_pkg_tools",
]);

/** The keys (and sub-keys) this server acts on; `$schema` is an editor hint. */
const HONOURED: Record<string, true | Set<string>> = {
  $schema: true,
  graphs: true,
  env: true,
  auth: new Set(["path"]),
  http: new Set(["app", "cors", "max_body_size", "disable_mcp", "disable_metrics", "metrics_auth", "inspector"]),
  ui: true,
  ui_config: new Set(["shared"]),
  a2a: new Set(["default_assistant", "grpc_port", "card", "agents", "security", "extended_card"]),
  mcp: new Set(["assistants", "mode", "call_timeout"]),
  run_timeout: true,
  storage: new Set(["path"]),
  encryption: new Set(["path"]),
  webhooks: new Set(["url", "signing_secret"]),
  checkpointer: new Set(["ttl"]),
  store: new Set(["ttl", "index"]),
};

/**
 * Runtime settings of langgraph.json this server does not implement (e.g.
 * `checkpointer.serde`, `http.disable_assistants`, `auth.openapi`), as dotted paths, so the server can say
 * at start that they have no effect instead of silently ignoring what a project asked for.
 */
export function unsupportedConfigKeys(config: LangGraphConfig): string[] {
  const found: string[] = [];
  for (const [key, value] of Object.entries(config)) {
    if (BUILD_KEYS.has(key) || value === undefined) continue;
    const honoured = HONOURED[key];
    if (honoured === true) continue;
    if (honoured && value !== null && typeof value === "object" && !Array.isArray(value)) {
      for (const sub of Object.keys(value)) if (!honoured.has(sub)) found.push(`${key}.${sub}`);
      continue;
    }
    found.push(key);
  }
  return found;
}
