import { copyFileSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { OFFICIAL_SERVER, peerDir } from "../peers/install.js";
import { freePort, startProcess, waitForHttp } from "../processes.js";
import type { RunningServer } from "./running-server.js";

const ECHO_GRAPH = fileURLToPath(new URL("../../../../examples/src/echo.ts", import.meta.url));

/**
 * The official JS server, `langgraphjs dev` (in memory, the only storage it has), on a project inside its
 * peer install that holds a copy of examples/src/echo.ts, so the graph resolves the peer's LangGraph
 * packages. Started fresh: its `.langgraph_api` folder from an earlier run is removed first.
 */
export async function startOfficialServer(): Promise<RunningServer> {
  const project = join(peerDir(OFFICIAL_SERVER), "project");
  rmSync(project, { recursive: true, force: true });
  mkdirSync(join(project, "src"), { recursive: true });
  copyFileSync(ECHO_GRAPH, join(project, "src", "echo.ts"));
  writeFileSync(join(project, "package.json"), JSON.stringify({ private: true, type: "module" }) + "\n");
  writeFileSync(join(project, "langgraph.json"), JSON.stringify({ node_version: "20", graphs: { echo: "./src/echo.ts:graph" } }) + "\n");

  // It cannot be told --port 0: its banner prints the port it was given, and the API server child binds it.
  const port = await freePort();
  const cli = join(peerDir(OFFICIAL_SERVER), "node_modules", "@langchain", "langgraph-cli", "dist", "cli", "cli.mjs");
  const args = [cli, "dev", "--host", "127.0.0.1", "--port", String(port), "--config", join(project, "langgraph.json")];
  // No browser, no reload watcher, no Studio host lookup through LangSmith.
  args.push("--no-browser", "--no-reload", "--studio-url", "http://127.0.0.1");
  const server = startProcess(process.execPath, args, { cwd: project, env: offlineEnv() });
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitForHttp(`${url}/ok`, server);
    return { name: "official", url, a2aUrl: `${url}/a2a/echo/`, pid: server.pid, output: server.output, stop: server.stop };
  } catch (error) {
    await server.stop();
    throw error;
  }
}

/**
 * No analytics (the CLI posts each command to a logging endpoint unless LANGGRAPH_CLI_NO_ANALYTICS=1), no
 * LangSmith tracing or keys, no browser.
 */
function offlineEnv(): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^(LANGSMITH_|LANGCHAIN_)/.test(key)));
  return {
    ...env,
    LANGGRAPH_CLI_NO_ANALYTICS: "1",
    LANGSMITH_TRACING: "false",
    LANGCHAIN_TRACING_V2: "false",
    BROWSER: "none",
    NO_COLOR: "1",
  };
}
