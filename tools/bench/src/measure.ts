/**
 * One operation of a scenario. `lane` is the caller's lane (0 when sequential, 0..c-1 when c run at once),
 * for scenarios that keep state per lane (a long thread each). It resolves with its own latency sample in
 * ms when the measured span is not the whole call (time to first event), else with nothing.
 */
export type Operation = (lane: number) => Promise<number | void>;

export interface LatencyStats {
  p50: number;
  p95: number;
  samples: number;
}

export interface ThroughputStats {
  concurrency: number;
  opsPerSec: number;
  ops: number;
}

export function percentile(sorted: number[], q: number): number {
  if (sorted.length === 0) throw new Error("percentile of no samples");
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

export function latencyStats(samples: number[]): LatencyStats {
  const sorted = [...samples].sort((a, b) => a - b);
  return { p50: percentile(sorted, 0.5), p95: percentile(sorted, 0.95), samples: sorted.length };
}

/**
 * How long a measurement goes on: operations until `maxOps` or `maxSeconds`, whichever comes first, but at
 * least `minOps` (a slow server still gets enough samples). Time-boxed, so a server 100 times slower than
 * another costs the run seconds, not minutes.
 */
export interface Budget {
  minOps: number;
  maxOps: number;
  maxSeconds: number;
}

/** Operations one after the other, after the `warmUp` budget's unmeasured ones. */
export async function sequential(op: Operation, budget: Budget, warmUp: Budget): Promise<LatencyStats> {
  await oneAfterAnother(op, warmUp);
  return latencyStats(await oneAfterAnother(op, budget));
}

/** Each operation's latency sample, one after the other until the budget is spent. */
async function oneAfterAnother(op: Operation, budget: Budget): Promise<number[]> {
  const samples: number[] = [];
  const deadline = performance.now() + budget.maxSeconds * 1000;
  while (samples.length < budget.maxOps && (samples.length < budget.minOps || performance.now() < deadline)) {
    const started = performance.now();
    const own = await op(0);
    samples.push(typeof own === "number" ? own : performance.now() - started);
  }
  return samples;
}

/**
 * `concurrency` lanes, each running operations back to back until the budget is spent (every lane does
 * at least `minOps / concurrency`); the rate is completed operations over wall time.
 */
export async function concurrent(op: Operation, budget: Budget, concurrency: number): Promise<ThroughputStats> {
  let started = 0;
  const deadline = performance.now() + budget.maxSeconds * 1000;
  const more = () => started < budget.maxOps && (started < budget.minOps || performance.now() < deadline);
  const lane = async (id: number) => {
    while (more()) {
      started += 1;
      await op(id);
    }
  };
  const begin = performance.now();
  await Promise.all(Array.from({ length: concurrency }, (_, id) => lane(id)));
  const seconds = (performance.now() - begin) / 1000;
  return { concurrency, opsPerSec: started / seconds, ops: started };
}

/** Runs `fn`, returning its result and how long it took (s). */
export async function timed<T>(fn: () => Promise<T>): Promise<{ result: T; seconds: number }> {
  const started = performance.now();
  const result = await fn();
  return { result, seconds: (performance.now() - started) / 1000 };
}
