import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { basename, dirname, relative, resolve } from "node:path";
import { InvalidInputError } from "@agent-server/core";

/** A file a scaffold command writes: its absolute path and its text. */
export interface GeneratedFile {
  path: string;
  content: string;
}

/**
 * Writes every file, or none: when one of them exists and `force` is off, nothing is written, so a
 * refused command leaves the project as it was.
 */
export function writeGeneratedFiles(files: GeneratedFile[], force: boolean): void {
  if (!force) {
    const existing = files.find((file) => existsSync(file.path));
    if (existing) throw new InvalidInputError(`${displayPath(existing.path)} already exists: pass --force to overwrite it`);
  }
  for (const file of files) {
    mkdirSync(dirname(file.path), { recursive: true });
    writeFileSync(file.path, file.content);
  }
}

/** A path as the user would type it from where they ran the command. */
export function displayPath(path: string): string {
  const fromCwd = relative(process.cwd(), path);
  return fromCwd === "" ? "." : fromCwd.startsWith("..") ? path : fromCwd;
}

/** `path` as a shell word: quoted when it holds anything but letters, digits and ._/- (a space, say). */
export function shellWord(path: string): string {
  return /^[\w./-]+$/.test(path) ? path : `'${path.replaceAll("'", `'\\''`)}'`;
}

/** The user's project as `dockerfile` and `compose` see it: the folder of langgraph.json is the build context. */
export interface ContainerProject {
  /** Absolute folder of langgraph.json: the image's build context and its /app. */
  dir: string;
  /** langgraph.json's name inside `dir`, as the container's `--config` gives it. */
  config: string;
  /** package-lock.json or npm-shrinkwrap.json when the project has one (then `npm ci`, else `npm install`). */
  lockfile?: string;
  /** Whether package.json lists `agent-server`, which the image runs from node_modules/.bin. */
  dependsOnAgentServer: boolean;
}

const LOCKFILES = ["package-lock.json", "npm-shrinkwrap.json"];

/** Reads what the container files depend on; a project without langgraph.json or package.json is refused. */
export function readContainerProject(configPath: string): ContainerProject {
  const config = resolve(configPath);
  if (!existsSync(config)) throw new InvalidInputError(`config file not found: ${config} (pass --config <path to langgraph.json>)`);
  const dir = dirname(config);
  let manifest: { dependencies?: Record<string, string>; devDependencies?: Record<string, string> };
  try {
    manifest = JSON.parse(readFileSync(resolve(dir, "package.json"), "utf8"));
  } catch (error) {
    throw new InvalidInputError(
      `cannot read ${resolve(dir, "package.json")} (${(error as Error).message}): the image installs the project's dependencies from it`,
    );
  }
  return {
    dir,
    config: basename(config),
    lockfile: LOCKFILES.find((name) => existsSync(resolve(dir, name))),
    dependsOnAgentServer: Boolean(manifest.dependencies?.["agent-server"] ?? manifest.devDependencies?.["agent-server"]),
  };
}

/** A note for a package.json without agent-server: the image would have no server to run. */
export function agentServerMissingNote(project: ContainerProject): string[] {
  return project.dependsOnAgentServer
    ? []
    : ["Note: package.json does not list agent-server, which the image runs: add it with `npm install agent-server`."];
}
