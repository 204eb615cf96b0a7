import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { peerProblems, SUPPORTED_PEERS } from "./peers.js";

/**
 * The published package's start check of the project's LangChain packages (its peers): each missing or
 * out-of-range one is a line that says what is installed, what is supported and what to run. Resolved
 * from a file in a project folder, as the installed bin resolves them.
 */
const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

function projectWith(versions: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "agent-server-peers-"));
  folders.push(dir);
  for (const [name, version] of Object.entries(versions)) {
    mkdirSync(join(dir, "node_modules", name), { recursive: true });
    writeFileSync(join(dir, "node_modules", name, "package.json"), JSON.stringify({ name, version }));
  }
  mkdirSync(join(dir, "node_modules", "agent-server", "dist"), { recursive: true });
  return pathToFileURL(join(dir, "node_modules", "agent-server", "dist", "peers.mjs")).href;
}

describe("peerProblems", () => {
  it("accepts the versions the tarball test runs (LangGraph 1.5.0) and the ones the repository builds with", () => {
    expect(
      peerProblems(
        projectWith({ "@langchain/langgraph": "1.5.0", "@langchain/core": "1.4.0", "@langchain/langgraph-checkpoint": "1.2.2" }),
      ),
    ).toEqual([]);
    expect(
      peerProblems(
        projectWith({ "@langchain/langgraph": "1.7.3", "@langchain/core": "1.4.0", "@langchain/langgraph-checkpoint": "1.2.2" }),
      ),
    ).toEqual([]);
  });

  it("names each missing peer with the command that installs it", () => {
    const problems = peerProblems(projectWith({ "@langchain/core": "1.4.0" }));
    expect(problems).toEqual([
      `@langchain/langgraph is not installed in this project (agent-server supports ${SUPPORTED_PEERS["@langchain/langgraph"]}): npm install @langchain/langgraph`,
      `@langchain/langgraph-checkpoint is not installed in this project (agent-server supports ${SUPPORTED_PEERS["@langchain/langgraph-checkpoint"]}): npm install @langchain/langgraph-checkpoint`,
    ]);
  });

  it("refuses a LangGraph too old or of the next major, saying which is installed", () => {
    for (const version of ["0.4.9", "1.4.2", "2.0.0"]) {
      const problems = peerProblems(
        projectWith({ "@langchain/langgraph": version, "@langchain/core": "1.4.0", "@langchain/langgraph-checkpoint": "1.2.2" }),
      );
      expect(problems).toEqual([
        `@langchain/langgraph ${version} is installed; agent-server supports ^1.5.0: npm install @langchain/langgraph@"^1.5.0"`,
      ]);
    }
  });
});
