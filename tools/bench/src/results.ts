import type { GrowthResult } from "./growth/growth.js";
import type { MachineFacts, Versions } from "./environment.js";
import type { LatencyStats, ThroughputStats } from "./measure.js";
import type { ScenarioId } from "./scenarios/index.js";
import type { SoakResult } from "./soak.js";

/** Who a scenario ran against. */
export type ServerName =
  | "floor"
  | "floor (postgres)"
  | "official"
  | "reference"
  | "a2a-js + LangGraph (SqliteSaver)"
  | "a2a-js + LangGraph (PostgresSaver)"
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
