import { spawn } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** Where the peers are installed (gitignored): one npm project per peer, beside the bench's sources. */
export const PEERS_DIR = fileURLToPath(new URL("../../.peers/", import.meta.url));

export interface Peer {
  /** The folder under .peers/. */
  name: string;
  /** Exact versions: what the bench installs and what the report names. */
  packages: Record<string, string>;
  /** npm 11's `allowScripts` for the peer's package.json: which install scripts may run (default: esbuild's). */
  allowScripts?: Record<string, boolean>;
}

/**
 * The official JS server, with the LangGraph packages the graph imports pinned to this repository's
 * versions, so both servers run the same graph on the same library.
 */
export const OFFICIAL_SERVER: Peer = {
  name: "langgraph-api",
  packages: {
    "@langchain/langgraph-cli": "1.5.1",
    "@langchain/langgraph-api": "1.5.1",
    "@langchain/core": "1.4.0",
    "@langchain/langgraph": "1.7.3",
    "@langchain/langgraph-checkpoint": "1.2.2",
    "@langchain/langgraph-sdk": "1.15.0",
    typescript: "5.9.3",
  },
};

/** The @a2a-js/sdk reference server (DefaultRequestHandler + InMemoryTaskStore behind express). */
export const A2A_REFERENCE: Peer = {
  name: "a2a-reference",
  packages: { "@a2a-js/sdk": "1.3.0", express: "5.3.0" },
};

/**
 * What a team would build instead of our server: the same SDK and express, an AgentExecutor invoking the
 * echo graph with LangGraph's SqliteSaver or PostgresSaver. LangGraph and the drivers (better-sqlite3, pg)
 * at this repository's versions, so the graph, the savers and the drivers are the ones our server runs;
 * tsx loads the graph's TypeScript as it loads ours. better-sqlite3 builds its binary in its install script.
 */
export const A2A_LANGGRAPH: Peer = {
  name: "a2a-langgraph",
  packages: {
    "@a2a-js/sdk": "1.3.0",
    express: "5.3.0",
    "@langchain/core": "1.4.0",
    "@langchain/langgraph": "1.7.3",
    "@langchain/langgraph-checkpoint": "1.2.2",
    "@langchain/langgraph-checkpoint-sqlite": "1.0.4",
    "@langchain/langgraph-checkpoint-postgres": "1.0.5",
    "better-sqlite3": "12.11.1",
    pg: "8.23.1",
    tsx: "4.23.15",
  },
  allowScripts: { "better-sqlite3": true, esbuild: true },
};

export function peerDir(peer: Peer): string {
  return join(PEERS_DIR, peer.name);
}

/** The A2A peers' shared express app and executor events (a2a-peer-app.mjs), copied beside a peer's server script. */
export function copyPeerApp(dir: string): void {
  copyFileSync(fileURLToPath(new URL("./a2a-peer-app.mjs", import.meta.url)), join(dir, "a2a-peer-app.mjs"));
}

/** The version of `pkg` installed in the peer's folder, or null. */
export function installedVersion(peer: Peer, pkg: string): string | null {
  const file = join(peerDir(peer), "node_modules", pkg, "package.json");
  if (!existsSync(file)) return null;
  return (JSON.parse(readFileSync(file, "utf8")) as { version: string }).version;
}

/** Installs the peer at its pinned versions unless every package already is; resolves with whether it installed. */
export async function ensureInstalled(peer: Peer): Promise<boolean> {
  if (Object.entries(peer.packages).every(([pkg, version]) => installedVersion(peer, pkg) === version)) return false;
  const dir = peerDir(peer);
  mkdirSync(dir, { recursive: true });
  // Its own package.json stops npm from walking up to the repository's workspace root.
  writeFileSync(
    join(dir, "package.json"),
    JSON.stringify(
      { name: `bench-peer-${peer.name}`, private: true, type: "module", allowScripts: peer.allowScripts ?? { esbuild: true } },
      null,
      2,
    ) + "\n",
  );
  const specs = Object.entries(peer.packages).map(([pkg, version]) => `${pkg}@${version}`);
  const args = ["install", "--prefix", dir, "--no-audit", "--no-fund", "--save-exact", "--loglevel", "error", ...specs];
  await run("npm", args, dir);
  for (const [pkg, version] of Object.entries(peer.packages)) {
    const got = installedVersion(peer, pkg);
    if (got !== version) throw new Error(`${peer.name}: installed ${pkg}@${got ?? "nothing"}, expected ${version}`);
  }
  return true;
}

function run(command: string, args: string[], cwd: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env: npmEnv(), stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
    child.once("error", reject);
    child.once("exit", (code) =>
      code === 0 ? resolve() : reject(new Error(`${command} ${args.join(" ")} exited ${code}:\n${output.slice(-4000)}`)),
    );
  });
}

/**
 * The environment without what an outer `npm run`/`npm test` put there for the repository's workspace
 * (npm_config_workspace, npm_package_*, ...), which would point the nested install at the wrong project.
 * Registry, cache and proxy settings stay.
 */
function npmEnv(): NodeJS.ProcessEnv {
  const keep = /^npm_config_(registry|cache|userconfig|globalconfig|.*proxy|strict_ssl|cafile)$/i;
  return Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key) || keep.test(key)));
}
