import { execSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readFileSync } from "node:fs";
import { basename, join } from "node:path";

/**
 * A Dockerfile's steps replayed without a container engine (none runs on these machines): what the
 * scaffold tests and the tarball test (tools/package) run of `agent-server dockerfile`'s output.
 */
export interface Instruction {
  keyword: string;
  args: string;
}

/** The instructions by stage (each FROM starts one); comments and blank lines dropped. */
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

/** What the project's .dockerignore keeps out of `COPY . .` (the name patterns `agent-server dockerfile` writes). */
function ignoredNames(project: string): (name: string) => boolean {
  const file = join(project, ".dockerignore");
  const patterns = existsSync(file)
    ? readFileSync(file, "utf8")
        .split("\n")
        .filter((p) => p && !p.startsWith("!"))
    : [];
  return (name) => patterns.some((p) => p === name || (p.endsWith("*") && name.startsWith(p.slice(0, -1))));
}

/**
 * The build stage: WORKDIR becomes `app`, COPY copies from the project (`.` minus .dockerignore; a source
 * that is missing fails, as it would in Docker), RUN runs its command in `app`. apt-get lines (system
 * packages, as root) are the one step left out. Returns the commands run.
 */
export function replayBuildStage(stage: Instruction[], project: string, app: string): string[] {
  const ignored = ignoredNames(project);
  const ran: string[] = [];
  for (const { keyword, args } of stage) {
    if (keyword === "WORKDIR") mkdirSync(app, { recursive: true });
    if (keyword === "COPY") {
      for (const source of args.split(/\s+/).slice(0, -1)) {
        cpSync(join(project, source), source === "." ? app : join(app, basename(source)), {
          recursive: true,
          filter: (path) => path === project || !ignored(basename(path)),
        });
      }
    }
    if (keyword === "RUN" && !args.startsWith("apt-get")) {
      const quiet = { npm_config_audit: "false", npm_config_fund: "false", npm_config_update_notifier: "false" };
      execSync(args, { cwd: app, env: { ...process.env, ...quiet }, stdio: "pipe", timeout: 600_000 });
      ran.push(args);
    }
  }
  return ran;
}

/** The runtime stage's ENV, HEALTHCHECK command and CMD: how the image's server is started and checked. */
export function imageRuntime(stage: Instruction[]): { env: Record<string, string>; healthCheck: string[]; command: string[] } {
  const env: Record<string, string> = {};
  let healthCheck: string[] = [];
  let command: string[] = [];
  for (const { keyword, args } of stage) {
    if (keyword === "ENV") for (const [, key, value] of args.matchAll(/(\w+)=(\S+)/g)) env[key!] = value!;
    if (keyword === "HEALTHCHECK") healthCheck = JSON.parse(args.slice(args.indexOf("CMD ") + 4)) as string[];
    if (keyword === "CMD") command = JSON.parse(args) as string[];
  }
  return { env, healthCheck, command };
}
