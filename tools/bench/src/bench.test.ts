import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, expect, test } from "vitest";
import { BEGIN, END } from "./report/document.js";
import type { BenchResults } from "./results.js";
import { SCENARIOS } from "./scenarios/index.js";

const MAIN = fileURLToPath(new URL("./main.ts", import.meta.url));
const TSX = createRequire(import.meta.url).resolve("tsx/cli");
const dir = mkdtempSync(join(tmpdir(), "bench-smoke-"));
let running: ChildProcess | undefined;
afterAll(() => {
  // If the test timed out, the bench still stops its servers: SIGTERM runs its clean-up.
  if (running?.exitCode === null) running.kill("SIGTERM");
  rmSync(dir, { recursive: true, force: true });
});

/** Runs the bench as `npm run bench` does (tsx, its own process), outside vitest's environment. */
function bench(args: string[]): Promise<{ code: number; output: string }> {
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^(VITEST|NODE_ENV$|TEST$)/.test(key)));
  const child = spawn(process.execPath, [TSX, MAIN, ...args], { env, stdio: ["ignore", "pipe", "pipe"] });
  running = child;
  let output = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
  return new Promise((resolve) => child.once("exit", (code) => resolve({ code: code ?? 1, output })));
}

function expectSaneNumbers(value: unknown, path: string): void {
  if (typeof value === "number") {
    expect(Number.isFinite(value) && value > 0, `${path} = ${value}`).toBe(true);
  } else if (Array.isArray(value)) {
    value.forEach((item, i) => expectSaneNumbers(item, `${path}[${i}]`));
  } else if (value && typeof value === "object") {
    for (const [key, item] of Object.entries(value)) expectSaneNumbers(item, `${path}.${key}`);
  }
}

test("--quick --out writes every scenario's table and chart, with finite positive figures, keeping the hand-written parts", async () => {
  const out = join(dir, "benchmarks.md");
  writeFileSync(out, "# Benchmarks\n\nIntro, by hand.\n\n## Signals\n\nA hand-written section.\n");

  const { code, output } = await bench(["--quick", "--out", out]);
  expect(code, output.slice(-6000)).toBe(0);

  const report = readFileSync(out, "utf8");
  expect(report.split(BEGIN)).toHaveLength(2);
  expect(report.split(END)).toHaveLength(2);
  expect(report).toContain("Intro, by hand.");
  expect(report).toContain("## Signals\n\nA hand-written section.");
  expect(report).toContain("## Where the time goes");
  expect(report).not.toMatch(/NaN|Infinity|undefined/);
  const charts = join(dir, "benchmarks");
  for (const chart of [...SCENARIOS.map((s) => s.id), "growth", "soak"]) {
    expect(readFileSync(join(charts, `${chart}.svg`), "utf8")).toMatch(/^<svg/);
    expect(report).toContain(`(benchmarks/${chart}.svg)`);
  }
  for (const scenario of SCENARIOS) {
    const section = report.slice(report.indexOf(`### ${scenario.title}\n`));
    expect(section, scenario.title).toMatch(
      /\| server \| p50 ms \| p95 ms \| samples \| 16 concurrent, ops\/s \| 64 concurrent, ops\/s \|/,
    );
    const peer = scenario.protocol === "sdk" ? "official" : "reference";
    expect(section).toContain(`p50: ${peer} ÷ ours`);
    if (scenario.protocol === "a2a") {
      expect(section).toContain("| ours (postgres) | a2a-js + LangGraph (PostgresSaver) |");
      expect(section).toContain("| ours (sqlite) | a2a-js + LangGraph lean (SqliteSaver) |");
    }
  }
  expect(report).toContain("| SQLite A2A SendMessage p50 ≤ a2a-js + LangGraph (SqliteSaver) p50 |");
  for (const [storage, saver] of [
    ["SQLite", "SqliteSaver"],
    ["PostgreSQL", "PostgresSaver"],
  ]) {
    for (const peer of [`a2a-js + LangGraph (${saver})`, `a2a-js + LangGraph lean (${saver})`]) {
      expect(report).toContain(`| ${storage} A2A SendMessage p50 ≤ ${peer} p50 |`);
      for (const c of [16, 64]) expect(report).toContain(`| ${storage} ${c}-concurrent A2A SendMessage throughput ≥ ${peer}'s |`);
    }
  }
  for (const storage of ["SQLite", "PostgreSQL"]) {
    expect(report).toContain(`| ${storage} A2A SendMessage p50 with LANGGRAPH_AES_KEY ≤ 1.1× without |`);
  }
  for (const heading of ["### Targets", "### Reads as the store grows", "### Memory under steady load", "### How long each part took"]) {
    expect(report).toContain(heading);
  }

  const results = JSON.parse(readFileSync(join(charts, "results.json"), "utf8")) as BenchResults;
  const peers = [
    "official",
    "reference",
    "a2a-js + LangGraph (SqliteSaver)",
    "a2a-js + LangGraph (PostgresSaver)",
    "a2a-js + LangGraph lean (SqliteSaver)",
    "a2a-js + LangGraph lean (PostgresSaver)",
  ];
  const sealed = ["ours (sqlite, sealed)", "ours (postgres, sealed)"];
  const servers = ["floor", "floor (postgres)", ...peers, "ours (memory)", "ours (sqlite)", "ours (postgres)", ...sealed];
  expect(new Set(results.scenarios.map((r) => r.server))).toEqual(new Set(servers));
  const sealedRan = results.scenarios.filter((r) => sealed.includes(r.server)).map((r) => r.scenario);
  expect(new Set(sealedRan)).toEqual(new Set(["a2a-send"]));
  for (const scenario of SCENARIOS) {
    const ran = results.scenarios.filter((r) => r.scenario === scenario.id).map((r) => r.server);
    expect(ran, scenario.id).toEqual(expect.arrayContaining(["ours (memory)", "ours (sqlite)", "ours (postgres)"]));
  }
  expectSaneNumbers(results.scenarios, "scenarios");
  expect(new Set(results.growth.map((g) => `${g.driver} ${g.operation} ${g.runs}`)).size).toBe(2 * 3 * 2);
  expectSaneNumbers(
    results.growth.map((g) => ({ runs: g.runs, latency: g.latency })),
    "growth",
  );
  expectSaneNumbers(
    {
      samples: results.soak.samples.map((s) => s.rssMb),
      after: results.soak.rssAfterWarmUpMb,
      end: results.soak.rssEndMb,
      ops: results.soak.ops,
    },
    "soak",
  );
  expect(Number.isFinite(results.soak.slopeMbPerMinute)).toBe(true);
});
