import { execFileSync } from "node:child_process";
import { cpus, loadavg, totalmem } from "node:os";
import { A2A_LANGGRAPH, A2A_REFERENCE, installedVersion, OFFICIAL_SERVER, type Peer } from "./peers/install.js";

export interface Versions {
  /** Ours: the commit, with "+ changes" when the work tree differs from it (the bench's own output aside). */
  ours: string;
  node: string;
  /** Each peer package as installed. */
  peers: Record<string, string>;
}

export interface MachineFacts {
  cores: number;
  cpuModel: string;
  memoryGiB: number;
  /** 1, 5 and 15 minute load averages when the run started and when it ended. */
  loadBefore: number[];
  loadAfter: number[];
}

export function versions(repoRoot: string): Versions {
  const git = (...args: string[]) => execFileSync("git", ["-C", repoRoot, ...args], { encoding: "utf8" }).trim();
  let ours: string;
  try {
    ours =
      git("rev-parse", "--short=12", "HEAD") +
      (git("status", "--porcelain", "--untracked-files=no", "--", ".", ":!docs/benchmarks.md", ":!docs/benchmarks") ? " + changes" : "");
  } catch {
    ours = "unknown (not a git checkout)";
  }
  const peers: Record<string, string> = {};
  const add = (peer: Peer, pkg: string) => (peers[pkg] = installedVersion(peer, pkg) ?? "not installed");
  add(OFFICIAL_SERVER, "@langchain/langgraph-cli");
  add(OFFICIAL_SERVER, "@langchain/langgraph-api");
  add(A2A_REFERENCE, "@a2a-js/sdk");
  add(A2A_REFERENCE, "express");
  add(A2A_LANGGRAPH, "@langchain/langgraph-checkpoint-sqlite");
  add(A2A_LANGGRAPH, "@langchain/langgraph-checkpoint-postgres");
  return { ours, node: process.version, peers };
}

export function machineFacts(loadBefore: number[]): MachineFacts {
  const cpu = cpus();
  return {
    cores: cpu.length,
    cpuModel: cpu[0]?.model.trim() ?? "unknown",
    memoryGiB: totalmem() / 1024 ** 3,
    loadBefore,
    loadAfter: loadavg(),
  };
}
