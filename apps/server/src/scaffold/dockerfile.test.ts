import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { EXAMPLE_CONFIG, killAll, memoryDevArgs, runCli, startCli } from "../../test/support/cli-process.js";
import { dockerfileStages, replayBuildStage, type Instruction } from "../../test/support/dockerfile-replay.js";
import { freePort } from "../../test/support/ports.js";
import { dockerfileText } from "./dockerfile.js";
import { readContainerProject } from "./files.js";
import { runHealthCheck } from "../../test/support/scaffolded-project.js";

afterEach(killAll);

const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

/** A project folder: langgraph.json, package.json without dependencies (installable offline), a lockfile or none. */
function makeProject(lockfile?: "package-lock.json" | "npm-shrinkwrap.json", dependencies: Record<string, string> = {}): string {
  const dir = mkdtempSync(join(tmpdir(), "agent-server-dockerfile-"));
  folders.push(dir);
  writeFileSync(join(dir, "langgraph.json"), JSON.stringify({ graphs: { agent: "./src/agent.ts:graph" } }));
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "my-agent", private: true, type: "module", dependencies }));
  if (lockfile) {
    const lock = { name: "my-agent", lockfileVersion: 3, requires: true, packages: { "": { name: "my-agent", dependencies } } };
    writeFileSync(join(dir, lockfile), JSON.stringify(lock));
  }
  mkdirSync(join(dir, "src"));
  writeFileSync(join(dir, "src", "agent.ts"), "export const graph = undefined;\n");
  return dir;
}

const lines = (stage: Instruction[]) => stage.map(({ keyword, args }) => `${keyword} ${args}`);

describe("agent-server dockerfile", () => {
  it("with a lockfile: npm ci in a build stage, then the server as `node` under tini in a slim runtime stage", () => {
    const [build, runtime] = dockerfileStages(
      dockerfileText(readContainerProject(join(makeProject("package-lock.json"), "langgraph.json"))),
    );
    expect(lines(build)).toEqual([
      "FROM node:20-slim AS build",
      "RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*",
      "WORKDIR /app",
      "COPY package.json package-lock.json ./",
      "RUN npm ci",
      "COPY . .",
    ]);
    expect(lines(runtime).slice(0, 8)).toEqual([
      "FROM node:20-slim",
      "RUN apt-get update && apt-get install -y --no-install-recommends tini && rm -rf /var/lib/apt/lists/*",
      "WORKDIR /app",
      "RUN chown node:node /app",
      "COPY --from=build --chown=node:node /app /app",
      "USER node",
      "ENV NODE_ENV=production PORT=8000",
      "EXPOSE 8000",
    ]);
    const rest = Object.fromEntries(runtime.slice(8).map(({ keyword, args }) => [keyword, args]));
    expect(Object.keys(rest)).toEqual(["HEALTHCHECK", "ENTRYPOINT", "CMD"]);
    const healthCheck = JSON.parse(rest.HEALTHCHECK.replace(/^.*? CMD /, ""));
    expect(healthCheck.slice(0, 2)).toEqual(["node", "-e"]);
    expect(healthCheck[2]).toContain("/ok");
    expect(JSON.parse(rest.ENTRYPOINT)).toEqual(["/usr/bin/tini", "--"]);
    // No --port: the server takes PORT (8000) from the image's environment.
    expect(JSON.parse(rest.CMD)).toEqual(["node_modules/.bin/agent-server", "serve", "--host", "0.0.0.0", "--config", "langgraph.json"]);
  });

  it("without a lockfile: npm install from package.json alone; npm-shrinkwrap.json counts as a lockfile", () => {
    const [withoutLock] = dockerfileStages(dockerfileText(readContainerProject(join(makeProject(), "langgraph.json"))));
    expect(lines(withoutLock)).toEqual(expect.arrayContaining(["COPY package.json ./", "RUN npm install"]));
    expect(lines(withoutLock)).not.toContain("RUN npm ci");
    const [shrinkwrap] = dockerfileStages(dockerfileText(readContainerProject(join(makeProject("npm-shrinkwrap.json"), "langgraph.json"))));
    expect(lines(shrinkwrap)).toEqual(expect.arrayContaining(["COPY package.json npm-shrinkwrap.json ./", "RUN npm ci"]));
  });

  it("the build stage's steps replay outside Docker, with and without a lockfile", () => {
    for (const lockfile of ["package-lock.json", undefined] as const) {
      const project = makeProject(lockfile);
      const [build] = dockerfileStages(dockerfileText(readContainerProject(join(project, "langgraph.json"))));
      const app = join(project, "..", `${project.split("/").at(-1)}-app`);
      folders.push(app);
      expect(replayBuildStage(build, project, app)).toEqual([lockfile ? "npm ci" : "npm install"]);
      expect(readFileSync(join(app, "src", "agent.ts"), "utf8")).toContain("graph");
      expect(JSON.parse(readFileSync(join(app, "package-lock.json"), "utf8")).name).toBe("my-agent");
    }
  });

  it("the HEALTHCHECK command exits 0 on a running server's /ok (port from PORT), 1 when nothing listens", async () => {
    const [, runtime] = dockerfileStages(dockerfileText(readContainerProject(join(makeProject(), "langgraph.json"))));
    const healthCheck = JSON.parse(runtime.find((i) => i.keyword === "HEALTHCHECK")!.args.replace(/^.*? CMD /, ""));
    const server = await startCli(memoryDevArgs(EXAMPLE_CONFIG));
    expect(await runHealthCheck(healthCheck, Number(new URL(server.url).port))).toBe(0);
    expect(await runHealthCheck(healthCheck, await freePort())).toBe(1);
  });

  it("writes Dockerfile and .dockerignore beside langgraph.json; refuses to overwrite either (exit 2, one line) unless --force", async () => {
    const project = makeProject("package-lock.json", { "agent-server": "^0.1.0" });
    const first = runCli(["dockerfile", "--config", project]);
    expect(await first.exited, first.stderr()).toBe(0);
    expect(first.stdout()).toContain("npm ci from package-lock.json");
    expect(first.stdout()).not.toContain("does not list agent-server");
    expect(readFileSync(join(project, "Dockerfile"), "utf8")).toContain("RUN npm ci");
    expect(readFileSync(join(project, ".dockerignore"), "utf8").split("\n")).toEqual(
      expect.arrayContaining(["node_modules", ".agent-server", ".env", "*.sqlite*"]),
    );

    writeFileSync(join(project, "Dockerfile"), "FROM mine\n");
    rmSync(join(project, ".dockerignore"));
    const refused = runCli(["dockerfile", "-c", project]);
    expect(await refused.exited).toBe(2);
    expect(refused.stderr()).toMatch(/^agent-server dockerfile: \/.*\/Dockerfile already exists: pass --force to overwrite it\n$/);
    expect(readFileSync(join(project, "Dockerfile"), "utf8")).toBe("FROM mine\n");
    expect(() => readFileSync(join(project, ".dockerignore"))).toThrow(/ENOENT/); // all or nothing

    const forced = runCli(["dockerfile", "-c", project, "--force"]);
    expect(await forced.exited, forced.stderr()).toBe(0);
    expect(readFileSync(join(project, "Dockerfile"), "utf8")).toContain("FROM node:20-slim AS build");

    const elsewhere = runCli(["dockerfile", "-c", project, "-o", join(project, "deploy", "Dockerfile.api"), "--force"]);
    expect(await elsewhere.exited, elsewhere.stderr()).toBe(0);
    expect(readFileSync(join(project, "deploy", "Dockerfile.api"), "utf8")).toContain("tini");
    expect(elsewhere.stdout()).toContain(`docker build -f ${join(project, "deploy", "Dockerfile.api")} -t my-agent ${project}`);
  });

  it("refuses a project without langgraph.json or package.json, and notes a package.json without agent-server", async () => {
    const empty = mkdtempSync(join(tmpdir(), "agent-server-dockerfile-"));
    folders.push(empty);
    const noConfig = runCli(["dockerfile", "--config", join(empty, "langgraph.json")]);
    expect(await noConfig.exited).toBe(2);
    expect(noConfig.stderr()).toContain("config file not found");
    writeFileSync(join(empty, "langgraph.json"), JSON.stringify({ graphs: {} }));
    const noManifest = runCli(["dockerfile", "--config", empty]);
    expect(await noManifest.exited).toBe(2);
    expect(noManifest.stderr()).toContain("the image installs the project's dependencies from it");

    const withoutServer = runCli(["dockerfile", "--config", makeProject()]);
    expect(await withoutServer.exited, withoutServer.stderr()).toBe(0);
    expect(withoutServer.stdout()).toContain("package.json does not list agent-server");
  });

  it("takes only --config, -o/--out and --force", async () => {
    const run = runCli(["dockerfile", "--storage", "postgres"]);
    expect(await run.exited).toBe(2);
    expect(run.stderr()).toContain("--storage is not an option of dockerfile");
  });
});
