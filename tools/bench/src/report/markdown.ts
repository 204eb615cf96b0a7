import { GROWTH_OPERATIONS, type BenchResults, type ScenarioResult, type ServerName } from "../results.js";
import { SCENARIOS, type Scenario } from "../scenarios/index.js";
import type { Chart } from "./charts.js";
import { count, mb, ms, rate, size, table, times } from "./format.js";
import { driverName, find, SAME_STORAGE_PEERS, targets, throughputAt } from "./targets.js";

/**
 * The generated part of docs/benchmarks.md: when, on what, the targets, a table of figures and one of
 * ratios per scenario with its chart, growth, the soak, and how long each part took.
 */
export function renderSection(results: BenchResults, charts: Record<string, Chart>, chartsFolder: string): string {
  const image = (key: string) => {
    const chart = charts[key];
    return chart ? `![${chart.title}](${chartsFolder}/${chart.file})` : "";
  };
  const parts = [
    "## Side by side: ours, the official server, the A2A reference (generated)",
    header(results),
    "### Targets",
    "Ours on SQLite unless the row says otherwise; each figure is from this run.",
    table(
      ["target", "measured", "result"],
      targets(results).map((t) => [t.target, t.measured, t.met ? t.verdict : `**${t.verdict}**`]),
    ),
    ...SCENARIOS.flatMap((scenario) => scenarioSection(results, scenario, image(scenario.id))),
    ...growthSection(results, image("growth")),
    ...soakSection(results, image("soak")),
    "### How long each part took",
    table(
      ["part", "seconds"],
      results.phases.map((p) => [p.name, p.seconds.toFixed(1)]),
    ),
  ];
  return parts.filter((part) => part !== "").join("\n\n");
}

function header(results: BenchResults): string {
  const { versions, machine } = results;
  const peers = Object.entries(versions.peers)
    .map(([pkg, version]) => `${pkg} ${version}`)
    .join(", ");
  const load = (l: number[]) => l.map((x) => x.toFixed(2)).join(" / ");
  const minutes = (Date.parse(results.finishedAt) - Date.parse(results.startedAt)) / 60_000;
  const command = results.profile === "quick" ? "`npm run bench -- --quick`" : "`npm run bench`";
  return [
    `${command}, ${results.startedAt.replace("T", " ").slice(0, 16)} UTC, ${minutes.toFixed(1)} min` +
      (results.profile === "quick" ? " — **quick profile: few iterations, small sizes, figures not to be kept**." : "."),
    `Ours: commit ${versions.ours}. Peers: ${peers}. Node ${versions.node}.`,
    `Machine: ${machine.cores} cores (${machine.cpuModel}), ${machine.memoryGiB.toFixed(1)} GiB RAM; load average (1/5/15 min) ${load(machine.loadBefore)} before, ${load(machine.loadAfter)} after.`,
    "Everything on loopback with the official clients; the servers, PostgreSQL and the load share the machine's cores. " +
      "Sequential: operations one after the other (p50/p95, ms). Concurrent: 16 or 64 operations in flight (ops/s). " +
      "The floor is the echo graph invoked in this process with `SqliteSaver` on a file, a fresh thread each time. " +
      "The a2a-js + LangGraph peers are what a team would build instead of ours: the `@a2a-js/sdk` server (as the reference) whose " +
      "`AgentExecutor` invokes the echo graph compiled with LangGraph's `SqliteSaver` (a file) or `PostgresSaver` (the same PostgreSQL as ours), " +
      "the A2A context id as the thread id. The plain peer's executor sends what the SDK's sample agent sends (submitted, working, the artifact, " +
      "completed with the answer as its status message); the lean one the least a server can (submitted, the artifact, completed).",
  ].join("\n");
}

function scenarioSection(results: BenchResults, scenario: Scenario, image: string): string[] {
  const rows = results.scenarios.filter((r) => r.scenario === scenario.id);
  if (rows.length === 0) return [];
  const figures = table(
    ["server", "p50 ms", "p95 ms", "samples", ...rows[0]!.throughput.map((t) => `${t.concurrency} concurrent, ops/s`)],
    rows.map((r) => [
      r.server,
      ms(r.sequential.p50),
      ms(r.sequential.p95),
      count(r.sequential.samples),
      ...r.throughput.map((t) => rate(t.opsPerSec)),
    ]),
  );
  return [`### ${scenario.title}`, scenario.description, figures, ratios(results, scenario, rows), sameStoragePeerRatios(rows), image];
}

/** Ours against the peer of the scenario's protocol, and above the floor where it applies. */
function ratios(results: BenchResults, scenario: Scenario, rows: ScenarioResult[]): string {
  const peerName = scenario.protocol === "sdk" ? "official" : "reference";
  const peer = rows.find((r) => r.server === peerName);
  const ours = rows.filter((r) => r.server.startsWith("ours"));
  const floorApplies = scenario.id === "sdk-new-thread" || scenario.id === "a2a-send";
  const floor = floorApplies ? find(results, "sdk-new-thread", "floor").sequential.p50 : undefined;
  if (!peer || ours.length === 0) return "";
  const concurrencies = peer.throughput.map((t) => t.concurrency);
  return table(
    [
      "ours",
      `p50: ${peerName} ÷ ours`,
      `p95: ${peerName} ÷ ours`,
      ...concurrencies.map((c) => `${c} concurrent: ours ÷ ${peerName}`),
      ...(floor === undefined ? [] : ["p50 − floor, ms"]),
    ],
    ours.map((r) => [
      r.server,
      times(peer.sequential.p50 / r.sequential.p50),
      times(peer.sequential.p95 / r.sequential.p95),
      ...concurrencies.map((c) => times(throughputAt(r, c) / throughputAt(peer, c))),
      ...(floor === undefined ? [] : [ms(r.sequential.p50 - floorOf(results, r.server, floor))]),
    ]),
  );
}

/** Ours on SQLite and PostgreSQL against the a2a-js + LangGraph peer on the same database (A2A scenarios). */
function sameStoragePeerRatios(rows: ScenarioResult[]): string {
  const pairs = SAME_STORAGE_PEERS.flatMap(({ ours, peer }) => {
    const o = rows.find((r) => r.server === ours);
    const p = rows.find((r) => r.server === peer);
    return o && p ? [{ o, p }] : [];
  });
  if (pairs.length === 0) return "";
  const concurrencies = pairs[0]!.p.throughput.map((t) => t.concurrency);
  return table(
    ["ours", "against", "p50: it ÷ ours", "p95: it ÷ ours", ...concurrencies.map((c) => `${c} concurrent: ours ÷ it`)],
    pairs.map(({ o, p }) => [
      o.server,
      p.server,
      times(p.sequential.p50 / o.sequential.p50),
      times(p.sequential.p95 / o.sequential.p95),
      ...concurrencies.map((c) => times(throughputAt(o, c) / throughputAt(p, c))),
    ]),
  );
}

function growthSection(results: BenchResults, image: string): string[] {
  if (results.growth.length === 0) return [];
  const sizes = [...new Set(results.growth.map((g) => g.runs))].sort((a, b) => a - b);
  const drivers = [...new Set(results.growth.map((g) => g.driver))];
  const rows = drivers.flatMap((driver) =>
    GROWTH_OPERATIONS.map((operation) => {
      const at = (runs: number) => results.growth.find((g) => g.driver === driver && g.operation === operation && g.runs === runs);
      const cells = sizes.map((runs) => {
        const point = at(runs);
        return point ? `${ms(point.latency.p50)} / ${ms(point.latency.p95)}` : "–";
      });
      const first = at(sizes[0]!);
      const last = at(sizes.at(-1)!);
      return [driverName(driver), operation, ...cells, first && last ? times(last.latency.p50 / first.latency.p50) : "–"];
    }),
  );
  const seeding = drivers.map((driver) => {
    const seconds = sizes.map((runs) => results.growth.find((g) => g.driver === driver && g.runs === runs)?.seedSeconds ?? 0);
    return `${driverName(driver)} ${seconds.map((s) => s.toFixed(1)).join(" + ")} s`;
  });
  return [
    "### Reads as the store grows",
    "One `serve` process over a store seeded in place through its driver (threads of 50 finished runs, the first an A2A task with a recorded result, " +
      "and the state of one real echo run), grown to each size in turn; then GetTask and ListTasks (one context) with the `@a2a-js/sdk` client " +
      `and \`threads.getState\` with the LangGraph SDK, each read of one thread in the middle of the store. Seeding took ${seeding.join(", ")}.`,
    table(
      ["driver", "read", ...sizes.map((s) => `${size(s)} runs: p50 / p95 ms`), `p50 at ${size(sizes.at(-1)!)} ÷ at ${size(sizes[0]!)}`],
      rows,
    ),
    image,
  ];
}

function soakSection(results: BenchResults, image: string): string[] {
  const { soak } = results;
  return [
    "### Memory under steady load",
    `Our server on SQLite for ${soak.seconds} s under ${soak.concurrency} lanes of load (half SDK new thread + runs.wait, half A2A SendMessage), ` +
      `RSS of the server process sampled ${soak.samples.length} times; the first ${Math.round(soak.warmUpSeconds)} s are warm-up. ` +
      "The trend is the median of the slopes between every two samples after it (Theil–Sen): a major GC's dip does not tilt it.",
    table(
      ["operations", "ops/s", "RSS after warm-up", "RSS at the end", "peak", "trend after warm-up"],
      [
        [
          count(soak.ops),
          rate(soak.ops / soak.seconds),
          mb(soak.rssAfterWarmUpMb),
          mb(soak.rssEndMb),
          mb(Math.max(...soak.samples.map((s) => s.rssMb))),
          `${soak.slopeMbPerMinute.toFixed(2)} MB/min`,
        ],
      ],
    ),
    image,
  ];
}

/** Ours on PostgreSQL against the PostgreSQL floor when it was measured; every other row against the SQLite floor. */
function floorOf(results: BenchResults, server: ServerName, sqliteFloor: number): number {
  if (!server.startsWith("ours (postgres")) return sqliteFloor;
  const pg = results.scenarios.find((r) => r.scenario === "sdk-new-thread" && r.server === "floor (postgres)");
  return pg ? pg.sequential.p50 : sqliteFloor;
}
