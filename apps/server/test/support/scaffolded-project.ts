import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { newProjectFiles, writeGeneratedFiles } from "../../src/scaffold/index.js";
import { REPO_ROOT } from "./cli-process.js";

export interface TempProject {
  dir: string;
  config: string;
  remove(): void;
}

/**
 * A project as `agent-server new` writes it, in a temp folder. Its `npm install` cannot run here (no
 * registry, agent-server unpublished), so its node_modules is a link to the repo's: the graph then
 * resolves @langchain/* to the very modules the server runs on (node follows the link to the real path).
 */
export function newProjectInTemp(): TempProject {
  const parent = mkdtempSync(join(tmpdir(), "agent-server-scaffold-"));
  const dir = join(parent, "my-agent");
  writeGeneratedFiles(newProjectFiles(dir), false);
  symlinkSync(join(REPO_ROOT, "node_modules"), join(dir, "node_modules"), "dir");
  return { dir, config: join(dir, "langgraph.json"), remove: () => rmSync(parent, { recursive: true, force: true }) };
}

/** Runs a container's health check command (["node", "-e", ...]) here, with PORT set; resolves with its exit code. */
export function runHealthCheck(command: string[], port: number): Promise<number> {
  const [program, ...args] = command;
  expectNode(program);
  const child = spawn(process.execPath, args, { env: { ...process.env, PORT: String(port) }, stdio: "ignore" });
  return new Promise((resolve) => child.once("exit", (code) => resolve(code ?? 1)));
}

function expectNode(program: string | undefined): void {
  if (program !== "node") throw new Error(`a health check that runs '${program}', not node: the slim image has no curl`);
}
