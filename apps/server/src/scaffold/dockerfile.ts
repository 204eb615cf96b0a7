import { resolve } from "node:path";
import type { ScaffoldOptions } from "../cli/index.js";
import { VERSION } from "../version.js";
import {
  agentServerMissingNote,
  displayPath,
  readContainerProject,
  shellWord,
  writeGeneratedFiles,
  type ContainerProject,
} from "./files.js";

/** The port the image's server listens on (its PORT), published by `docker run -p` and compose. */
export const CONTAINER_PORT = 8000;

/** The server command of the image, as compose extends it: --config names the project's langgraph.json. */
export function serverCommand(project: ContainerProject, command: "serve" | "migrate"): string[] {
  const host = command === "serve" ? ["--host", "0.0.0.0"] : [];
  return ["node_modules/.bin/agent-server", command, ...host, "--config", project.config];
}

/**
 * A `node -e` health check (node:20-slim has no curl): exit 0 when `path` answers 2xx on the
 * container's own $PORT.
 */
export function healthCheckCommand(path: "/ok" | "/ready"): string[] {
  const script = `fetch('http://127.0.0.1:' + (process.env.PORT || ${CONTAINER_PORT}) + '${path}').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))`;
  return ["node", "-e", script];
}

/**
 * `agent-server dockerfile`: a Dockerfile (and its .dockerignore) for the project of --config. Every RUN
 * is a plain shell command, so the build's steps can be replayed (and tested) without a container engine.
 */
export function writeDockerfile(options: ScaffoldOptions, out: (line: string) => void): void {
  const project = readContainerProject(options.config);
  const dockerfile = options.out !== undefined ? resolve(options.out) : resolve(project.dir, "Dockerfile");
  const dockerignore = resolve(project.dir, ".dockerignore");
  writeGeneratedFiles(
    [
      { path: dockerfile, content: dockerfileText(project) },
      { path: dockerignore, content: DOCKERIGNORE },
    ],
    options.force,
  );
  out(
    `Wrote ${displayPath(dockerfile)} and ${displayPath(dockerignore)} (${project.lockfile ? `npm ci from ${project.lockfile}` : "npm install: no lockfile"}).`,
  );
  for (const line of agentServerMissingNote(project)) out(line);
  out("");
  out("Build and run:");
  const file = dockerfile === resolve(project.dir, "Dockerfile") ? "" : ` -f ${shellWord(displayPath(dockerfile))}`;
  out(`  docker build${file} -t my-agent ${shellWord(displayPath(project.dir))}`);
  out(`  docker run -p ${CONTAINER_PORT}:${CONTAINER_PORT} my-agent`);
}

/** The Dockerfile: install in a build stage, run as `node` under tini in a slim runtime stage. */
export function dockerfileText(project: ContainerProject): string {
  const manifests = ["package.json", ...(project.lockfile ? [project.lockfile] : [])];
  const install = project.lockfile ? "npm ci" : "npm install";
  const json = (words: string[]) => JSON.stringify(words);
  return `# Written by \`agent-server dockerfile\` (agent-server ${VERSION}).
#   docker build -t my-agent .
#   docker run -p ${CONTAINER_PORT}:${CONTAINER_PORT} my-agent
# Storage: SQLite in /app/.agent-server (mount a volume there to keep it), or PostgreSQL: add
# "--storage", "postgres" to the command and set DATABASE_URI (compose.yaml from \`agent-server compose\` does).
# On \`docker stop\` the server drains: running runs get 10 s to finish, then go back to the queue
# (resumed from their checkpoint on the next start); give it \`docker stop -t 30\`.

FROM node:20-slim AS build
# Compilers for native modules (better-sqlite3) in case no prebuilt binary can be downloaded.
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
WORKDIR /app
# Dependencies first: this layer is rebuilt only when they change, not on every source edit.
COPY ${manifests.join(" ")} ./
RUN ${install}
COPY . .

FROM node:20-slim
# tini is PID 1: it passes \`docker stop\`'s SIGTERM on to the server, which drains, and reaps child
# processes. The kernel gives PID 1 no default signal actions: a server still starting would ignore it.
RUN apt-get update && apt-get install -y --no-install-recommends tini && rm -rf /var/lib/apt/lists/*
WORKDIR /app
# The server writes .agent-server/ (SQLite) under /app: the node user owns it.
RUN chown node:node /app
COPY --from=build --chown=node:node /app /app
USER node
ENV NODE_ENV=production PORT=${CONTAINER_PORT}
EXPOSE ${CONTAINER_PORT}
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 CMD ${json(healthCheckCommand("/ok"))}
ENTRYPOINT ["/usr/bin/tini", "--"]
# The port comes from PORT (flags win over it: --port would override).
CMD ${json(serverCommand(project, "serve"))}
`;
}

/** Kept out of the build context: installed modules (the image installs its own), local data and secrets. */
export const DOCKERIGNORE = `node_modules
.agent-server
*.sqlite*
.langgraph_api
.env
.env.*
!.env.example
.git
npm-debug.log*
Dockerfile
.dockerignore
compose.yaml
`;
