import { existsSync } from "node:fs";
import { dirname, relative, resolve } from "node:path";
import type { ScaffoldOptions } from "../cli/index.js";
import { VERSION } from "../version.js";
import { CONTAINER_PORT, healthCheckCommand, serverCommand } from "./dockerfile.js";
import {
  agentServerMissingNote,
  displayPath,
  readContainerProject,
  shellWord,
  writeGeneratedFiles,
  type ContainerProject,
} from "./files.js";

/** API processes over the one database, each published on its own host port from CONTAINER_PORT up. */
export const API_PROCESSES = 2;

/**
 * The URL both `migrate` and the API processes are given as DATABASE_URI (read when --storage postgres
 * is on the command line and neither --database-url nor POSTGRES_URL is set). The password comes from
 * POSTGRES_PASSWORD when the environment or .env beside compose.yaml sets it (it must be URL-safe).
 */
const DATABASE_URI = "postgres://agent:${POSTGRES_PASSWORD:-agent}@postgres:5432/agent";

/**
 * `agent-server compose`: PostgreSQL, a one-off `agent-server migrate`, then API processes.
 * Two services (api-1, api-2) rather than `deploy.replicas: 2`: replicas cannot share one fixed host port,
 * and compose v2 hands a published port range to replicas unreliably (docker/compose#10246), while two
 * services each get a known port with a plain `docker compose up`.
 */
export function writeCompose(options: ScaffoldOptions, out: (line: string) => void): void {
  const project = readContainerProject(options.config);
  const file = options.out !== undefined ? resolve(options.out) : resolve(project.dir, "compose.yaml");
  writeGeneratedFiles([{ path: file, content: composeText(project, relative(dirname(file), project.dir) || ".") }], options.force);
  out(`Wrote ${displayPath(file)}: postgres, migrate (once), ${apiServiceNames().join(", ")}.`);
  for (const line of agentServerMissingNote(project)) out(line);
  if (!existsSync(resolve(project.dir, "Dockerfile"))) {
    out(
      `Note: it builds ${displayPath(resolve(project.dir, "Dockerfile"))}, which does not exist yet: run \`npx agent-server dockerfile\`.`,
    );
  }
  out("");
  out("Start:");
  out(`  docker compose -f ${shellWord(displayPath(file))} up --build`);
  out(
    `  (API on ${apiServiceNames()
      .map((_, index) => `http://localhost:${CONTAINER_PORT + index}`)
      .join(" and ")})`,
  );
}

export function apiServiceNames(): string[] {
  return Array.from({ length: API_PROCESSES }, (_, index) => `api-${index + 1}`);
}

/** The compose file; `context` is the project folder relative to the compose file. */
export function composeText(project: ContainerProject, context: string): string {
  // JSON arrays and strings are YAML flow values: no quoting rules of our own.
  const flow = (words: string[]) => JSON.stringify(words);
  const build = `    build:
      context: ${JSON.stringify(context)}
      dockerfile: Dockerfile`;
  const api = (name: string, index: number) => `  ${name}:
${build}
    command: ${flow([...serverCommand(project, "serve"), "--storage", "postgres"])}
    environment:
      DATABASE_URI: ${JSON.stringify(DATABASE_URI)}
    ports:
      - "${CONTAINER_PORT + index}:${CONTAINER_PORT}"
    depends_on:
      postgres:
        condition: service_healthy
      migrate:
        condition: service_completed_successfully
    healthcheck:
      # /ready answers 503 while the process drains, so traffic moves to the other process.
      test: ${flow(healthCheckCommand("/ready"))}
      interval: 10s
      timeout: 5s
      start_period: 30s
      retries: 3
    # The server's drain takes up to 10 s (grace) + 5 s (a run's last step); docker's default is 10 s.
    stop_grace_period: 30s
    restart: unless-stopped
    # Keys your graph needs (OPENAI_API_KEY, ...):
    # env_file: .env
`;
  return `# Written by \`agent-server compose\` (agent-server ${VERSION}): PostgreSQL, a one-off \`agent-server migrate\`,
# then ${API_PROCESSES} API processes sharing the database (runs are queued in it: any process may execute any run).
#   docker compose up --build
# Add an api-${API_PROCESSES + 1} the same way (next host port) for one more process.
services:
  postgres:
    image: postgres:16
    environment:
      POSTGRES_USER: agent
      POSTGRES_PASSWORD: \${POSTGRES_PASSWORD:-agent}
      POSTGRES_DB: agent
    volumes:
      - postgres-data:/var/lib/postgresql/data
    healthcheck:
      test: ["CMD-SHELL", "pg_isready -U agent -d agent"]
      interval: 5s
      timeout: 5s
      retries: 20
  migrate:
${build}
    command: ${flow([...serverCommand(project, "migrate"), "--storage", "postgres"])}
    environment:
      DATABASE_URI: ${JSON.stringify(DATABASE_URI)}
    depends_on:
      postgres:
        condition: service_healthy
    healthcheck:
      disable: true
    restart: "no"
${apiServiceNames().map(api).join("")}volumes:
  postgres-data:
`;
}
