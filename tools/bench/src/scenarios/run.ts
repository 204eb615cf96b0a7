import { concurrent, sequential, type Operation } from "../measure.js";
import type { Profile } from "../profile.js";
import type { ScenarioResult, ServerName } from "../results.js";
import type { RunningServer } from "../servers/running-server.js";
import type { ScenarioId } from "../results.js";
import type { Scenario } from "./scenario.js";

/** Measures one operation sequentially (p50/p95), then at each of the profile's concurrencies (ops/s). */
export async function measureOperation(scenario: ScenarioId, server: ServerName, op: Operation, profile: Profile): Promise<ScenarioResult> {
  const latency = await sequential(op, profile.sequential, profile.warmUp);
  const throughput = [];
  for (const c of profile.concurrencies) throughput.push(await concurrent(op, profile.concurrent(c), c));
  const result = { scenario, server, sequential: latency, throughput };
  log(result);
  return result;
}

/** Each of `scenarios` against one running server. */
export async function measureServer(scenarios: Scenario[], server: RunningServer, profile: Profile): Promise<ScenarioResult[]> {
  const results: ScenarioResult[] = [];
  const lanes = Math.max(...profile.concurrencies);
  for (const scenario of scenarios) {
    const op = await scenario.setup(server, lanes);
    results.push(await measureOperation(scenario.id, server.name, op, profile));
  }
  return results;
}

function log(result: ScenarioResult): void {
  const rates = result.throughput.map((t) => `c${t.concurrency} ${t.opsPerSec.toFixed(1)} ops/s`).join(", ");
  console.log(
    `  ${result.server.padEnd(34)} ${result.scenario.padEnd(24)} p50 ${result.sequential.p50.toFixed(2)} ms, p95 ${result.sequential.p95.toFixed(2)} ms (${result.sequential.samples}); ${rates}`,
  );
}
