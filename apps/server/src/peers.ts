import { createRequire } from "node:module";
import semver from "semver";

/**
 * The LangChain packages the project provides (the published package's peers), the ranges the server
 * supports, and what to run when one is missing. Checked by the package's bin before anything loads
 * them, so a project without LangGraph, or with a LangGraph the server cannot run, learns why in one line
 * instead of an import error from deep inside the server.
 */
export const SUPPORTED_PEERS: Record<string, string> = {
  "@langchain/langgraph": "^1.5.0",
  "@langchain/core": "^1.1.48",
  "@langchain/langgraph-checkpoint": "^1.2.0",
};

/** What is wrong with the peers resolved from `from` (a file URL or path), one line each; empty when all fit. */
export function peerProblems(from: string): string[] {
  const require = createRequire(from);
  const problems: string[] = [];
  for (const [name, range] of Object.entries(SUPPORTED_PEERS)) {
    let version: string;
    try {
      version = (require(`${name}/package.json`) as { version: string }).version;
    } catch {
      problems.push(`${name} is not installed in this project (agent-server supports ${range}): npm install ${name}`);
      continue;
    }
    if (!semver.satisfies(version, range, { includePrerelease: true })) {
      problems.push(`${name} ${version} is installed; agent-server supports ${range}: npm install ${name}@"${range}"`);
    }
  }
  return problems;
}

/** Exits 2 with the problems when a peer is missing or out of range (the exit code of a wrong project). */
export function checkPeers(from: string = import.meta.url): void {
  const problems = peerProblems(from);
  if (problems.length === 0) return;
  for (const problem of problems) process.stderr.write(`agent-server: ${problem}\n`);
  process.exit(2);
}
