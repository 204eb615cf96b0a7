/**
 * What a user's project pays for the server (issue 26): install footprint and cold start, ours (the
 * `npm run package` tarball) beside the official `@langchain/langgraph-cli` in the same kind of project.
 * Three fresh projects outside the repository, each with `@langchain/langgraph` 1.5.0 and
 * `@langchain/core` 1.4.0 and the repository's example graphs: the bare project, + agent-server,
 * + @langchain/langgraph-cli 1.5.1 (which brings @langchain/langgraph-api).
 * - footprint: packages (folders with a package.json under node_modules) and MB added to the bare project;
 * - cold start: spawn to the first 200 on /ok, fresh data each time: our `serve` (SQLite) and `dev`
 *   (reload supervisor + server), the official `langgraphjs dev` (in-memory, its only mode).
 *
 *   npx tsx tools/bench/investigations/package-start.ts [--rounds 5] [--keep]
 *
 * Prints a markdown table (median and min of the rounds) for docs/benchmarks.md.
 */
import { execFile, spawn } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { parseArgs, promisify } from "node:util";
import { buildPackage, REPO_ROOT } from "../../package/src/build.js";
import { freePort } from "@agent-server/server/testing";

const { values: args } = parseArgs({ options: { rounds: { type: "string", default: "5" }, keep: { type: "boolean", default: false } } });
const rounds = Number(args.rounds);
const run = promisify(execFile);

async function project(name: string, devDependencies: Record<string, string>): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), `agent-server-bench-${name}-`));
  mkdirSync(join(dir, "src"));
  for (const graph of ["echo.ts", "approval.ts"]) copyFileSync(join(REPO_ROOT, "examples/src", graph), join(dir, "src", graph));
  writeFileSync(
    join(dir, "langgraph.json"),
    JSON.stringify({ node_version: "20", graphs: { echo: "./src/echo.ts:graph", approval: "./src/approval.ts:graph" } }),
  );
  writeFileSync(
    join(dir, "package.json"),
    JSON.stringify({
      name: `bench-${name}`,
      private: true,
      type: "module",
      dependencies: { "@langchain/langgraph": "1.5.0", "@langchain/core": "1.4.0" },
      devDependencies,
    }),
  );
  const started = Date.now();
  await run("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error"], {
    cwd: dir,
    timeout: 900_000,
    maxBuffer: 1 << 26,
  });
  console.error(`${name}: installed in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  return dir;
}

/** Packages (folders holding a package.json, nested ones included) and bytes under node_modules. */
function footprint(dir: string): { packages: number; bytes: number } {
  let packages = 0;
  let bytes = 0;
  const walk = (folder: string, isModules: boolean) => {
    for (const entry of readdirSync(folder)) {
      const path = join(folder, entry);
      const stat = statSync(path, { throwIfNoEntry: false });
      if (!stat) continue;
      if (stat.isDirectory()) {
        if (isModules && !entry.startsWith(".") && (existsSync(join(path, "package.json")) || entry.startsWith("@"))) {
          if (!entry.startsWith("@")) packages++;
        }
        walk(path, entry === "node_modules" || entry.startsWith("@"));
      } else bytes += stat.size;
    }
  };
  walk(join(dir, "node_modules"), true);
  return { packages, bytes };
}

/** Spawn to the first 200 on /ok, in ms; the process group is killed afterwards. */
async function coldStart(dir: string, command: string[], port: number): Promise<number> {
  rmSync(join(dir, ".agent-server"), { recursive: true, force: true });
  rmSync(join(dir, ".langgraph_api"), { recursive: true, force: true });
  const started = performance.now();
  const child = spawn(command[0]!, command.slice(1), {
    cwd: dir,
    stdio: "ignore",
    detached: true,
    env: { ...process.env, POSTGRES_URL: "" },
  });
  try {
    for (;;) {
      const ok = await fetch(`http://127.0.0.1:${port}/ok`).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) return performance.now() - started;
      if (child.exitCode !== null) throw new Error(`${command.join(" ")} exited ${child.exitCode}`);
      if (performance.now() - started > 120_000) throw new Error(`${command.join(" ")}: no /ok in 120 s`);
      await sleep(5);
    }
  } finally {
    try {
      process.kill(-child.pid!, "SIGKILL");
    } catch {
      /* gone */
    }
    await sleep(300);
  }
}

async function measure(dir: string, command: (port: number) => string[]): Promise<{ median: number; min: number }> {
  const times: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const port = await freePort();
    times.push(await coldStart(dir, command(port), port));
  }
  times.sort((a, b) => a - b);
  return { median: times[Math.floor(times.length / 2)]!, min: times[0]! };
}

const tarball = await buildPackage();
const bare = await project("bare", {});
const ours = await project("ours", { "agent-server": `file:${tarball}` });
const official = await project("official", { "@langchain/langgraph-cli": "1.5.1" });
const base = footprint(bare);
const added = (dir: string) => {
  const f = footprint(dir);
  return { packages: f.packages - base.packages, mb: (f.bytes - base.bytes) / 1e6 };
};
const node = process.execPath;
const oursServe = await measure(ours, (port) => [
  node,
  "node_modules/.bin/agent-server",
  "serve",
  "--host",
  "127.0.0.1",
  "--port",
  String(port),
]);
const oursDev = await measure(ours, (port) => [node, "node_modules/.bin/agent-server", "dev", "--port", String(port), "--no-browser"]);
const officialDev = await measure(official, (port) => [
  node,
  "node_modules/.bin/langgraphjs",
  "dev",
  "--port",
  String(port),
  "--no-browser",
]);
const ms = (t: { median: number; min: number }) => `${Math.round(t.median)} ms (min ${Math.round(t.min)})`;
const [a, b] = [added(ours), added(official)];
console.log(`| | agent-server 0.1.0 | @langchain/langgraph-cli 1.5.1 |
| --- | --- | --- |
| packages added to the project | ${a.packages} | ${b.packages} |
| MB added to node_modules | ${a.mb.toFixed(0)} | ${b.mb.toFixed(0)} |
| cold start to /ok: serve (SQLite) | ${ms(oursServe)} | — |
| cold start to /ok: dev | ${ms(oursDev)} (SQLite) | ${ms(officialDev)} (in memory) |

Bare project (@langchain/langgraph 1.5.0 + @langchain/core 1.4.0): ${base.packages} packages, ${(base.bytes / 1e6).toFixed(0)} MB. ${rounds} rounds each, median and min.`);
if (!args.keep) for (const dir of [bare, ours, official]) rmSync(dir, { recursive: true, force: true });
