/**
 * `npm run bench`: ours, the official JS server, the @a2a-js/sdk reference server and that SDK running the
 * echo graph with LangGraph's savers (what a team would build instead) measured side by side in one run, then docs/benchmarks.md rewritten between its markers, with a chart per scenario beside it.
 *
 *   npm run bench -- [--quick] [--out <file>] [--soak-seconds <n>] [--growth-sizes <n,n,...>]
 *
 * Order: peers installed (when not already at their pinned versions), the in-process floor, the reference
 * server, the official server, the a2a-js + LangGraph peers (SqliteSaver, PostgresSaver), ours on memory,
 * SQLite and PostgreSQL, growth, the soak. Every process and
 * database it starts is stopped in `finally` and on SIGINT/SIGTERM.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { REPO_ROOT } from "@agent-server/server/testing";
import { machineFacts, versions } from "./environment.js";
import { measureGrowth } from "./growth/growth.js";
import { timed } from "./measure.js";
import { A2A_LANGGRAPH, A2A_REFERENCE, ensureInstalled, OFFICIAL_SERVER } from "./peers/install.js";
import { openBenchPostgres } from "./postgres.js";
import { cleanUp, killAllNow, onCleanUp } from "./processes.js";
import { parseBenchArgs, USAGE, type Profile } from "./profile.js";
import { chartsDir, chartsLink, writeSection } from "./report/document.js";
import { writeCharts } from "./report/charts.js";
import { renderSection } from "./report/markdown.js";
import type { BenchResults, GrowthResult, Phase, ScenarioResult } from "./results.js";
import { SCENARIOS } from "./scenarios/index.js";
import { openFloor, openPostgresFloor, type Floor } from "./scenarios/floor.js";
import { measureOperation, measureServer } from "./scenarios/run.js";
import { a2aLangGraphName, startA2aLangGraphServer, type A2aLangGraphSaver } from "./servers/a2a-langgraph.js";
import { startOfficialServer } from "./servers/official.js";
import { startOurServer, type OurStorage } from "./servers/ours.js";
import { startReferenceServer } from "./servers/reference.js";
import { explainFailures, type RunningServer } from "./servers/running-server.js";
import { soak } from "./soak.js";

async function main(argv: string[]): Promise<void> {
  const args = parseBenchArgs(argv, REPO_ROOT);
  if (args === "help") return void console.log(USAGE);
  const { profile } = args;
  const loadBefore = loadavg();
  const startedAt = new Date().toISOString();
  const phases: Phase[] = [];
  const phase = async <T>(name: string, fn: () => Promise<T>): Promise<T> => {
    console.log(`${name} ...`);
    const { result, seconds } = await timed(fn);
    phases.push({ name, seconds });
    console.log(`${name}: ${seconds.toFixed(1)} s`);
    return result;
  };

  await phase("install peers (skipped when installed)", () =>
    Promise.all([ensureInstalled(OFFICIAL_SERVER), ensureInstalled(A2A_REFERENCE), ensureInstalled(A2A_LANGGRAPH)]),
  );
  const measured = versions(REPO_ROOT);
  const scenarios: ScenarioResult[] = [];
  scenarios.push(await phase("floor (in-process)", () => measureFloor(profile)));
  const a2a = SCENARIOS.filter((s) => s.protocol === "a2a");
  const sdk = SCENARIOS.filter((s) => s.protocol === "sdk");
  scenarios.push(...(await phase("reference A2A server", () => withServer(startReferenceServer, (s) => measureServer(a2a, s, profile)))));
  scenarios.push(...(await phase("official server", () => withServer(startOfficialServer, (s) => measureServer(sdk, s, profile)))));
  const postgres = await phase("PostgreSQL", openBenchPostgres);
  scenarios.push(
    await phase("floor (in-process, PostgreSQL)", () =>
      measureFloor(profile, "floor (postgres)", () => openPostgresFloor(postgres.url, postgres.newSchema("floor"))),
    ),
  );
  for (const kind of ["sqlite", "postgres"] as const) {
    const saver = (): A2aLangGraphSaver =>
      kind === "sqlite"
        ? { kind, file: join(tempDir("bench-a2a-langgraph-"), "checkpoints.sqlite") }
        : { kind, url: postgres.url, schema: postgres.newSchema("a2a_langgraph") };
    for (const variant of ["sample", "lean"] as const) {
      scenarios.push(
        ...(await phase(a2aLangGraphName(kind, variant), () =>
          withServer(
            () => startA2aLangGraphServer(saver(), variant),
            (s) => measureServer(a2a, s, profile),
          ),
        )),
      );
    }
  }
  for (const storage of ["memory", "sqlite", "postgres"] as OurStorage[]) {
    const start = () => {
      if (storage === "postgres")
        return startOurServer({ storage, databaseUrl: postgres.url, databaseSchema: postgres.newSchema("bench") });
      return startOurServer({ storage, dataDir: storage === "sqlite" ? tempDir("bench-sqlite-") : undefined });
    };
    scenarios.push(...(await phase(`ours (${storage})`, () => withServer(start, (s) => measureServer(SCENARIOS, s, profile)))));
  }
  // Encryption at rest's cost: A2A SendMessage with LANGGRAPH_AES_KEY set, beside the rows above.
  const send = SCENARIOS.filter((s) => s.id === "a2a-send");
  for (const storage of ["sqlite", "postgres"] as const) {
    const start = () =>
      storage === "postgres"
        ? startOurServer({ storage, sealed: true, databaseUrl: postgres.url, databaseSchema: postgres.newSchema("sealed") })
        : startOurServer({ storage, sealed: true, dataDir: tempDir("bench-sealed-") });
    scenarios.push(...(await phase(`ours (${storage}, sealed)`, () => withServer(start, (s) => measureServer(send, s, profile)))));
  }
  const growth: GrowthResult[] = [];
  for (const driver of profile.growth.drivers) {
    const { sizes, rounds } = profile.growth;
    growth.push(...(await phase(`growth (${driver})`, () => measureGrowth({ driver, sizes, rounds, postgres }))));
  }
  const soakResult = await phase(`soak (${profile.soak.seconds} s)`, () => soak(profile.soak));

  const results: BenchResults = {
    profile: profile.name,
    startedAt,
    finishedAt: new Date().toISOString(),
    versions: measured,
    machine: machineFacts(loadBefore),
    scenarios,
    growth,
    soak: soakResult,
    phases,
  };
  const charts = await writeCharts(results, chartsDir(args.out));
  writeFileSync(join(chartsDir(args.out), "results.json"), JSON.stringify(results, null, 2) + "\n");
  writeSection(args.out, renderSection(results, charts, chartsLink(args.out)));
  console.log(`wrote ${args.out} and its charts in ${chartsDir(args.out)}`);
}

async function measureFloor(
  profile: Profile,
  name: "floor" | "floor (postgres)" = "floor",
  open: () => Floor | Promise<Floor> = openFloor,
): Promise<ScenarioResult> {
  const floor = await open();
  try {
    return await measureOperation("sdk-new-thread", name, floor.operation, profile);
  } finally {
    await floor.dispose();
  }
}

async function withServer<T>(start: () => Promise<RunningServer>, fn: (server: RunningServer) => Promise<T>): Promise<T> {
  const server = await start();
  try {
    return await explainFailures(server, () => fn(server));
  } finally {
    await server.stop();
  }
}

function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  onCleanUp(async () => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    // Servers first, at once (another handler may exit the process), then databases and folders.
    killAllNow();
    void cleanUp().finally(() => process.exit(128 + (signal === "SIGINT" ? 2 : 15)));
  });
}
process.once("exit", killAllNow);

try {
  await main(process.argv.slice(2));
} catch (error) {
  console.error(error);
  process.exitCode = 1;
} finally {
  await cleanUp();
}
