import { copyFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { A2A_LANGGRAPH, copyPeerApp, peerDir } from "../peers/install.js";
import { startProcess } from "../processes.js";
import type { ServerName } from "../results.js";
import type { RunningServer } from "./running-server.js";

const SERVER_SOURCE = fileURLToPath(new URL("../peers/a2a-langgraph-server.mjs", import.meta.url));
const ECHO_GRAPH = fileURLToPath(new URL("../../../../examples/src/echo.ts", import.meta.url));

/** The saver the peer's graph is compiled with: SqliteSaver on a file, or PostgresSaver in a schema of its own. */
export type A2aLangGraphSaver = { kind: "sqlite"; file: string } | { kind: "postgres"; url: string; schema: string };

/**
 * The executor's events: `sample` as the SDK's sample agent (submitted, working, the artifact, completed with
 * the answer as its status message); `lean` the least a server can send (submitted, the artifact, completed).
 */
export type A2aLangGraphVariant = "sample" | "lean";

export function a2aLangGraphName(kind: A2aLangGraphSaver["kind"], variant: A2aLangGraphVariant = "sample"): ServerName {
  const saver = kind === "sqlite" ? "SqliteSaver" : "PostgresSaver";
  return variant === "lean" ? `a2a-js + LangGraph lean (${saver})` : `a2a-js + LangGraph (${saver})`;
}

/**
 * The @a2a-js/sdk server whose executor invokes the echo graph (peers/a2a-langgraph-server.mjs), run inside
 * its peer install beside a copy of examples/src/echo.ts, so the graph resolves the peer's LangGraph.
 */
export async function startA2aLangGraphServer(
  saver: A2aLangGraphSaver,
  variant: A2aLangGraphVariant = "sample",
  nodeArgs: readonly string[] = [],
): Promise<RunningServer> {
  const dir = peerDir(A2A_LANGGRAPH);
  const script = join(dir, "a2a-langgraph-server.mjs");
  copyFileSync(SERVER_SOURCE, script);
  copyFileSync(ECHO_GRAPH, join(dir, "echo.ts"));
  copyPeerApp(dir);
  const where = saver.kind === "sqlite" ? [saver.file] : [saver.url, saver.schema];
  // tsx from the peer install (its folder is the cwd): it loads echo.ts, as langgraphjs dev and ours load theirs.
  const args = [...nodeArgs, "--import", "tsx", script, ...(variant === "lean" ? ["--lean"] : []), saver.kind, ...where];
  const server = startProcess(process.execPath, args, { cwd: dir, env: peerEnv() });
  try {
    const [, url] = await server.waitFor(/listening on (http:\/\/\S+)/);
    return {
      name: a2aLangGraphName(saver.kind, variant),
      url: url!,
      a2aUrl: `${url}/`,
      pid: server.pid,
      output: server.output,
      stop: server.stop,
    };
  } catch (error) {
    await server.stop();
    throw error;
  }
}

/** Production mode, no LangSmith tracing (LangGraph would post every run), and no $POSTGRES_URL: its argv says which database. */
function peerEnv(): NodeJS.ProcessEnv {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !/^(LANGSMITH_|LANGCHAIN_|POSTGRES_URL$|POSTGRES_URI$)/.test(key)),
  );
  return { ...env, NODE_ENV: "production", LANGSMITH_TRACING: "false", LANGCHAIN_TRACING_V2: "false" };
}
