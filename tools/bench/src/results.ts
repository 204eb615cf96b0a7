import type { MachineFacts, Versions } from "./environment.js";
import type { LatencyStats, ThroughputStats } from "./measure.js";

export type ScenarioId = "sdk-new-thread" | "sdk-long-thread" | "sdk-stream-first-event" | "a2a-send" | "a2a-get-task";

export type GrowthDriver = "sqlite" | "postgres";
export type GrowthOperation = "GetTask" | "ListTasks (one context)" | "thread state";
export const GROWTH_OPERATIONS: GrowthOperation[] = ["GetTask", "ListTasks (one context)", "thread state"];

export interface GrowthResult {
  driver: GrowthDriver;
  operation: GrowthOperation;
  /** Runs stored when measured. */
  runs: number;
  latency: LatencyStats;
  /** Seconds spent seeding up to this size (from the previous one). */
  seedSeconds: number;
}

export interface SoakResult {
  driver: "sqlite";
  seconds: number;
  warmUpSeconds: number;
  concurrency: number;
  ops: number;
  /** Seconds since the load started, RSS in MB. */
  samples: { t: number; rssMb: number }[];
  rssAfterWarmUpMb: number;
  rssEndMb: number;
  /** Trend of the samples after the warm-up (median of pairwise slopes, see medianSlope). */
  slopeMbPerMinute: number;
  /** The slope over the measured window, as a fraction of the RSS after warm-up: what "flat" is judged on. */
  growthFraction: number;
}

/** Who a scenario ran against. */
export type ServerName =
  | "floor"
  | "floor (postgres)"
  | "official"
  | "reference"
  | "a2a-js + LangGraph (SqliteSaver)"
  | "a2a-js + LangGraph (PostgresSaver)"
  | "a2a-js + LangGraph lean (SqliteSaver)"
  | "a2a-js + LangGraph lean (PostgresSaver)"
  | "ours (memory)"
  | "ours (sqlite)"
  | "ours (postgres)"
  | "ours (sqlite, sealed)"
  | "ours (postgres, sealed)";

export interface ScenarioResult {
  scenario: ScenarioId;
  server: ServerName;
  sequential: LatencyStats;
  throughput: ThroughputStats[];
}

/** How long one part of the run took, for the report (and for keeping the whole under budget). */
export interface Phase {
  name: string;
  seconds: number;
}

/** Everything one run measured: what the report and the charts are made from (written as results.json too). */
export interface BenchResults {
  profile: "full" | "quick";
  startedAt: string;
  finishedAt: string;
  versions: Versions;
  machine: MachineFacts;
  scenarios: ScenarioResult[];
  growth: GrowthResult[];
  soak: SoakResult;
  phases: Phase[];
}
