import type { Operation } from "../measure.js";
import type { ScenarioId } from "../results.js";
import type { RunningServer } from "../servers/running-server.js";

/** One measured operation, run sequentially (p50/p95) and at each concurrency (ops/s) against each server it applies to. */
export interface Scenario {
  id: ScenarioId;
  title: string;
  /** Which servers it applies to: the LangGraph API (ours, the official server) or A2A (ours, the reference server). */
  protocol: "sdk" | "a2a";
  /** For the report: what one operation does. */
  description: string;
  /** Prepares the operation against `server`; `lanes` is the most operations that will run at once. */
  setup(server: RunningServer, lanes: number): Promise<Operation>;
}
