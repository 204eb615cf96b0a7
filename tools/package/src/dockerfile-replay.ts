import { execSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";

/** One instruction of a Dockerfile (continuation lines are not used by `agent-server dockerfile`). */
interface Instruction {
  keyword: string;
  args: string;
}

/** The Dockerfile's instructions by stage (each FROM starts one). */
export function dockerfileStages(text: string): Instruction[][] {
  const stages: Instruction[][] = [];
  for (const line of text.split("\n")) {
    const match = /^([A-Z]+)\s+(.*)$/.exec(line);
    if (!match) continue;
    if (match[1] === "FROM") stages.push([]);
    stages.at(-1)?.push({ keyword: match[1]!, args: match[2]! });
  }
  return stages;
}

/** What .dockerignore keeps out of `COPY . .` (the patterns `agent-server dockerfile` writes). */
function ignored(name: string, patterns: string[]): boolean {
  return patterns.some((p) => !p.startsWith("!") && (p === name || (p.endsWith("*") && name.startsWith(p.slice(0, -1)))));
}

/**
 * Replays the build stage without a container engine: a clean folder for WORKDIR, COPY from the project
 * (`.` minus .dockerignore), each RUN in that folder; apt-get lines (system packages, as root) are the
 * one step left out. Returns the folder and the runtime stage's ENV, HEALTHCHECK and CMD.
 */
export function replayBuild(project: string): { app: string; env: Record<string, string>; healthCheck: string[]; command: string[] } {
  const [build, runtime] = dockerfileStages(readFileSync(join(project, "Dockerfile"), "utf8"));
  const app = mkdtempSync(join(tmpdir(), "agent-server-image-"));
  const patterns = readFileSync(join(project, ".dockerignore"), "utf8").split("\n").filter(Boolean);
  for (const { keyword, args } of build!) {
    if (keyword === "COPY") {
      const sources = args.split(/\s+/).slice(0, -1);
      for (const source of sources) {
        cpSync(join(project, source), source === "." ? app : join(app, basename(source)), {
          recursive: true,
          filter: (path) => path === project || !ignored(basename(path), patterns),
        });
      }
    }
    if (keyword === "RUN" && !args.startsWith("apt-get")) execSync(args, { cwd: app, stdio: "pipe", timeout: 600_000 });
  }
  const env: Record<string, string> = {};
  let healthCheck: string[] = [];
  let command: string[] = [];
  for (const { keyword, args } of runtime!) {
    if (keyword === "ENV") for (const [, key, value] of args.matchAll(/(\w+)=(\S+)/g)) env[key!] = value!;
    if (keyword === "HEALTHCHECK") healthCheck = JSON.parse(args.slice(args.indexOf("CMD ") + 4)) as string[];
    if (keyword === "CMD") command = JSON.parse(args) as string[];
  }
  return { app, env, healthCheck, command };
}
