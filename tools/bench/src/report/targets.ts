import {
  GROWTH_OPERATIONS,
  type BenchResults,
  type GrowthDriver,
  type GrowthOperation,
  type ScenarioId,
  type ScenarioResult,
  type ServerName,
} from "../results.js";
import { mb, ms, percent, rate, size, times } from "./format.js";

/** One target of the issue, judged on this run's figures (ours on SQLite unless said). */
export interface TargetRow {
  target: string;
  measured: string;
  met: boolean;
  /** "met" with the margin, or "missed by" how much. */
  verdict: string;
}

/** The soak's RSS counts as flat when the trend after warm-up adds at most this much of it over the window. */
export const FLAT_RSS_FRACTION = 0.05;
/** Growth: a read at the largest size may take at most this many times what it took at the smallest. */
export const GROWTH_LIMIT = 1.5;

export function find(results: BenchResults, scenario: ScenarioId, server: ServerName): ScenarioResult {
  const found = results.scenarios.find((r) => r.scenario === scenario && r.server === server);
  if (!found) throw new Error(`no result for ${scenario} on ${server}`);
  return found;
}

/**
 * Issues 30 and 44: each of our storages against what a team would build instead on the same database, the
 * @a2a-js/sdk server running the graph with LangGraph's own saver, as the SDK's sample agent does it and lean.
 */
export const SAME_STORAGE_PEERS: { ours: ServerName; peer: ServerName; storage: string }[] = [
  { ours: "ours (sqlite)", peer: "a2a-js + LangGraph (SqliteSaver)", storage: "SQLite" },
  { ours: "ours (sqlite)", peer: "a2a-js + LangGraph lean (SqliteSaver)", storage: "SQLite" },
  { ours: "ours (postgres)", peer: "a2a-js + LangGraph (PostgresSaver)", storage: "PostgreSQL" },
  { ours: "ours (postgres)", peer: "a2a-js + LangGraph lean (PostgresSaver)", storage: "PostgreSQL" },
];

function has(results: BenchResults, scenario: ScenarioId, server: ServerName): boolean {
  return results.scenarios.some((r) => r.scenario === scenario && r.server === server);
}

export function throughputAt(result: ScenarioResult, concurrency: number): number {
  const found = result.throughput.find((t) => t.concurrency === concurrency);
  if (!found) throw new Error(`no ${concurrency}-concurrent result for ${result.scenario} on ${result.server}`);
  return found.opsPerSec;
}

/** At most `limit` ms. */
function atMostMs(target: string, value: number, limit: number, how: string): TargetRow {
  const met = value <= limit;
  const margin = met ? `met, ${ms(limit - value)} ms to spare` : `missed by ${ms(value - limit)} ms (${percent(value / limit - 1)})`;
  return { target, measured: `${ms(value)} ms; limit ${ms(limit)} ms (${how})`, met, verdict: margin };
}

/** A ratio of at least `least`. */
function atLeastRatio(target: string, ratio: number, least: number, how: string): TargetRow {
  const met = ratio >= least;
  const verdict = met ? `met (${times(ratio)})` : `missed: ${times(ratio)} of ${times(least)} (needs ${percent(least / ratio - 1)})`;
  return { target, measured: `${times(ratio)} (${how})`, met, verdict };
}

export function targets(results: BenchResults): TargetRow[] {
  const ours = "ours (sqlite)" as const;
  const floor = find(results, "sdk-new-thread", "floor").sequential.p50;
  const a2aOurs = find(results, "a2a-send", ours);
  const a2aRef = find(results, "a2a-send", "reference");
  const sdkOurs = find(results, "sdk-new-thread", ours);
  const sdkOfficial = find(results, "sdk-new-thread", "official");
  const rows: TargetRow[] = [
    atMostMs(
      "A2A SendMessage p50 ≤ reference p50 + floor p50",
      a2aOurs.sequential.p50,
      a2aRef.sequential.p50 + floor,
      `reference ${ms(a2aRef.sequential.p50)} + floor ${ms(floor)}`,
    ),
    atLeastRatio(
      "16-concurrent A2A SendMessage throughput ≥ 0.5× the reference's",
      throughputAt(a2aOurs, 16) / throughputAt(a2aRef, 16),
      0.5,
      `${rate(throughputAt(a2aOurs, 16))} vs ${rate(throughputAt(a2aRef, 16))} ops/s`,
    ),
    atMostMs("SDK op (new thread + runs.wait) p50 ≤ floor p50 + 3 ms", sdkOurs.sequential.p50, floor + 3, `floor ${ms(floor)} + 3`),
    atLeastRatio(
      "SDK op p50 ≥ 100× lower than the official server's",
      sdkOfficial.sequential.p50 / sdkOurs.sequential.p50,
      100,
      `official ${ms(sdkOfficial.sequential.p50)} ms ÷ ours ${ms(sdkOurs.sequential.p50)} ms`,
    ),
    atLeastRatio(
      "16-concurrent SDK op throughput ≥ 8× the official server's",
      throughputAt(sdkOurs, 16) / throughputAt(sdkOfficial, 16),
      8,
      `${rate(throughputAt(sdkOurs, 16))} vs ${rate(throughputAt(sdkOfficial, 16))} ops/s`,
    ),
  ];
  rows.push(...postgresRows(results), ...sameStoragePeerRows(results), ...sealedRows(results));
  const drivers = [...new Set(results.growth.map((g) => g.driver))];
  for (const driver of drivers) for (const operation of GROWTH_OPERATIONS) rows.push(growthRow(results, driver, operation));
  rows.push(rssRow(results));
  return rows;
}

/** Issue 42: encryption at rest costs under 10 % of A2A SendMessage's p50, on SQLite and PostgreSQL. */
function sealedRows(results: BenchResults): TargetRow[] {
  const pairs = [
    { plain: "ours (sqlite)", sealed: "ours (sqlite, sealed)", storage: "SQLite" },
    { plain: "ours (postgres)", sealed: "ours (postgres, sealed)", storage: "PostgreSQL" },
  ] as const;
  return pairs
    .filter(({ plain, sealed }) => has(results, "a2a-send", plain) && has(results, "a2a-send", sealed))
    .flatMap(({ plain, sealed, storage }) => {
      const p = find(results, "a2a-send", plain);
      const s = find(results, "a2a-send", sealed);
      return [
        atMostMs(
          `${storage} A2A SendMessage p50 with LANGGRAPH_AES_KEY ≤ 1.1× without`,
          s.sequential.p50,
          p.sequential.p50 * 1.1,
          `without a key ${ms(p.sequential.p50)} ms`,
        ),
        atLeastRatio(
          `${storage} 16-concurrent A2A SendMessage with LANGGRAPH_AES_KEY ≥ 0.9× without`,
          throughputAt(s, 16) / throughputAt(p, 16),
          0.9,
          `${rate(throughputAt(s, 16))} vs ${rate(throughputAt(p, 16))} ops/s`,
        ),
      ];
    });
}

/** Issue 16: PostgreSQL at its floor, and not far behind SQLite under concurrency (when both were measured). */
function postgresRows(results: BenchResults): TargetRow[] {
  const measured = has(results, "sdk-new-thread", "floor (postgres)") && has(results, "a2a-send", "ours (postgres)");
  if (!measured || !has(results, "a2a-send", "ours (sqlite)")) return [];
  const floor = find(results, "sdk-new-thread", "floor (postgres)").sequential.p50;
  const pg = find(results, "a2a-send", "ours (postgres)");
  const sqlite = find(results, "a2a-send", "ours (sqlite)");
  return [
    atMostMs(
      "PostgreSQL A2A SendMessage p50 ≤ PostgreSQL floor p50 + 5 ms",
      pg.sequential.p50,
      floor + 5,
      `floor (PostgresSaver) ${ms(floor)} + 5`,
    ),
    atLeastRatio(
      "PostgreSQL 16-concurrent A2A SendMessage ≥ 0.8× SQLite's",
      throughputAt(pg, 16) / throughputAt(sqlite, 16),
      0.8,
      `${rate(throughputAt(pg, 16))} vs ${rate(throughputAt(sqlite, 16))} ops/s`,
    ),
  ];
}

/** Ours no slower than the a2a-js + LangGraph peer on the same database, sequentially and 16 at once (when both were measured). */
function sameStoragePeerRows(results: BenchResults): TargetRow[] {
  return SAME_STORAGE_PEERS.filter(({ ours, peer }) => has(results, "a2a-send", ours) && has(results, "a2a-send", peer)).flatMap(
    ({ ours, peer, storage }) => {
      const o = find(results, "a2a-send", ours);
      const p = find(results, "a2a-send", peer);
      return [
        atMostMs(`${storage} A2A SendMessage p50 ≤ ${peer} p50`, o.sequential.p50, p.sequential.p50, `${peer} ${ms(p.sequential.p50)} ms`),
        ...[16, 64].map((concurrency) =>
          atLeastRatio(
            `${storage} ${concurrency}-concurrent A2A SendMessage throughput ≥ ${peer}'s`,
            throughputAt(o, concurrency) / throughputAt(p, concurrency),
            1,
            `${rate(throughputAt(o, concurrency))} vs ${rate(throughputAt(p, concurrency))} ops/s`,
          ),
        ),
      ];
    },
  );
}

function growthRow(results: BenchResults, driver: GrowthDriver, operation: GrowthOperation): TargetRow {
  const points = results.growth.filter((g) => g.driver === driver && g.operation === operation).sort((a, b) => a.runs - b.runs);
  const first = points[0]!;
  const last = points.at(-1)!;
  const ratio = last.latency.p50 / first.latency.p50;
  const met = ratio <= GROWTH_LIMIT;
  return {
    target: `${operation} at ${size(last.runs)} runs within ${GROWTH_LIMIT}× of ${size(first.runs)} (${driverName(driver)})`,
    measured: `p50 ${ms(first.latency.p50)} → ${ms(last.latency.p50)} ms = ${times(ratio)}`,
    met,
    verdict: met ? "met" : `missed by ${percent(ratio / GROWTH_LIMIT - 1)} (${times(ratio)} of ${times(GROWTH_LIMIT)})`,
  };
}

function rssRow(results: BenchResults): TargetRow {
  const { soak } = results;
  const met = soak.growthFraction <= FLAT_RSS_FRACTION;
  const window = Math.round(soak.seconds - soak.warmUpSeconds);
  return {
    target: `RSS flat after warm-up (trend ≤ ${percent(FLAT_RSS_FRACTION)} over the soak)`,
    measured: `${mb(soak.rssAfterWarmUpMb)} after warm-up → ${mb(soak.rssEndMb)} at the end; trend ${soak.slopeMbPerMinute.toFixed(2)} MB/min = ${percent(soak.growthFraction)} over ${window} s`,
    met,
    verdict: met ? "met" : `missed: ${percent(soak.growthFraction)} against at most ${percent(FLAT_RSS_FRACTION)}`,
  };
}

export function driverName(driver: GrowthDriver | "memory"): string {
  return driver === "sqlite" ? "SQLite" : driver === "postgres" ? "PostgreSQL" : "memory";
}
