import { createRequire } from "node:module";

/** The @langchain/langgraph this server runs graphs with (what the official JS server reports too). */
const LANGGRAPH_JS_VERSION: string | null = (() => {
  try {
    return (createRequire(import.meta.url)("@langchain/langgraph/package.json") as { version: string }).version;
  } catch {
    return null;
  }
})();

const TRACING_VARIABLES = ["LANGSMITH_TRACING_V2", "LANGCHAIN_TRACING_V2", "LANGSMITH_TRACING", "LANGCHAIN_TRACING"];

/**
 * Whether LangChain traces runs to LangSmith in this process: an API key, and a tracing variable set to
 * "true" (what @langchain/core checks). Read per request: the environment is the project's (`env`).
 */
function langsmithTracing(env: NodeJS.ProcessEnv): boolean {
  const key = env.LANGSMITH_API_KEY || env.LANGCHAIN_API_KEY;
  return Boolean(key) && TRACING_VARIABLES.some((name) => env[name]?.toLowerCase() === "true");
}

/**
 * GET /info: the shape of the official servers' answer, which clients (Studio, agent-chat-ui) read to
 * decide what to offer. `host` describes a self-hosted server with none of LangSmith's deployment ids.
 */
export function serverInfo(version: string, env: NodeJS.ProcessEnv = process.env) {
  return {
    version,
    langgraph_js_version: LANGGRAPH_JS_VERSION,
    context: "js" as const,
    flags: {
      assistants: true,
      crons: true,
      langsmith: langsmithTracing(env),
      // Per-run tracing replicas (Studio's own project) are not applied to runs here.
      langsmith_tracing_replicas: false,
      a2a: true,
      // `strict_resume` on runs and on the thread streaming protocol's input.respond: a resume naming an
      // interrupt that is not pending fails the run with UnknownInterruptError, the thread left as it was.
      strict_resume: true,
      // Run streams and joins take `namespace` (the SDK's `streamNamespaces`): only those namespaces' events.
      stream_namespaces: true,
    },
    host: { kind: "self-hosted" as const, project_id: null, host_revision_id: null, revision_id: null, tenant_id: null },
  };
}
