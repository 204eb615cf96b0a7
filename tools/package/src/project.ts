import { execFile, spawn, type ChildProcess } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { waitForOutput } from "@agent-server/server/testing";
import { REPO_ROOT } from "./build.js";

/**
 * A LangGraph project of a user's own, outside the repository: its package.json pins
 * `@langchain/langgraph` 1.5.0 (the oldest the package supports) and installs the packed server from its
 * tarball; the repository's example graphs (echo, approval with an interrupt, and relay, which imports
 * `agent-server/a2a` to call echo over A2A) are its graphs.
 */
export interface UserProject {
  dir: string;
  /** Runs `npx agent-server <args>` in the project; the process is stopped by `stopAll`. */
  agentServer(args: string[], env?: Record<string, string>): ServerProcess;
}

export interface ServerProcess {
  child: ChildProcess;
  output(): string;
  exited: Promise<number>;
  /** Resolves once `pattern` appears in the output; rejects when the process exits first or after `timeoutMs`. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
}

const running = new Set<ChildProcess>();
/** Every process group started: dev's server child may outlive npx. */
const groups = new Set<number>();

export async function createUserProject(tarball: string): Promise<UserProject> {
  const dir = mkdtempSync(join(tmpdir(), "agent-server-project-"));
  mkdirSync(join(dir, "src"));
  for (const graph of ["echo.ts", "approval.ts", "relay.ts"]) copyFileSync(join(REPO_ROOT, "examples/src", graph), join(dir, "src", graph));
  const graphs = { echo: "./src/echo.ts:graph", approval: "./src/approval.ts:graph", relay: "./src/relay.ts:graph" };
  writeFileSync(join(dir, "langgraph.json"), JSON.stringify({ node_version: "20", graphs }, null, 2));
  writeFileSync(
    join(dir, "package.json"),
    JSON.stringify(
      {
        name: "my-langgraph-project",
        private: true,
        type: "module",
        dependencies: { "@langchain/langgraph": "1.5.0", "@langchain/core": "1.4.0" },
        devDependencies: { "agent-server": `file:${tarball}` },
      },
      null,
      2,
    ),
  );
  // The npm cache first: the only network is the npm registry, and most of these are cached already.
  await promisify(execFile)("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error"], {
    cwd: dir,
    timeout: 600_000,
    maxBuffer: 16 * 1024 * 1024,
  });
  return {
    dir,
    agentServer(args, env = {}) {
      // As the user runs it. A process group of its own: npx, the CLI and dev's server child stop together.
      const child = spawn("npx", ["--no-install", "agent-server", ...args], {
        cwd: dir,
        env: { ...process.env, NO_COLOR: "1", POSTGRES_URL: "", ...env },
        stdio: ["ignore", "pipe", "pipe"],
        detached: true,
      });
      running.add(child);
      groups.add(child.pid!);
      let out = "";
      const listeners = new Set<() => void>();
      const append = (chunk: string) => {
        out += chunk;
        for (const listener of listeners) listener();
      };
      child.stdout!.setEncoding("utf8").on("data", append);
      child.stderr!.setEncoding("utf8").on("data", append);
      const exited = new Promise<number>((resolve) =>
        child.once("exit", (code, signal) => {
          running.delete(child);
          resolve(code ?? (signal === "SIGTERM" ? 143 : 137));
          for (const listener of listeners) listener();
        }),
      );
      const waitFor = (pattern: RegExp, timeoutMs = 60_000) =>
        waitForOutput({ child, listeners, output: () => out, pattern, timeoutMs, context: () => `:\n${out}` });
      return { child, output: () => out, exited, waitFor };
    },
  };
}

/** Sends `signal` to the process group `agentServer` started for `child` (npx and everything under it). */
export function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    process.kill(-child.pid!, signal);
  } catch {
    /* already gone */
  }
}

/** Stops every process group `agentServer` started that is still running (SIGKILL: a test that wanted a clean stop did it). */
export async function stopAll(): Promise<void> {
  const exits = [...running].map((child) => new Promise<void>((resolve) => child.once("exit", () => resolve())));
  for (const pid of groups) {
    try {
      process.kill(-pid, "SIGKILL");
    } catch {
      /* the group is gone */
    }
  }
  groups.clear();
  await Promise.all(exits);
}
