import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sleep } from "./processes.js";
import type { SoakResult } from "./results.js";
import { a2aSend, sdkNewThread } from "./scenarios/index.js";
import { startOurServer } from "./servers/ours.js";

export interface SoakOptions {
  seconds: number;
  /** Samples before this are the warm-up (the heap and caches filling). */
  warmUpSeconds: number;
  sampleEverySeconds: number;
  /** Lanes of load: half SDK operations (new thread + runs.wait), half A2A SendMessage. */
  concurrency: number;
}

/**
 * Our server (SQLite) under steady load for `seconds`: the RSS of the server process, sampled while the
 * load runs. A store on disk holds no runs in memory, so what grows after the warm-up is a leak.
 */
export async function soak(options: SoakOptions): Promise<SoakResult> {
  const dir = mkdtempSync(join(tmpdir(), "bench-soak-"));
  const server = await startOurServer({ storage: "sqlite", dataDir: dir });
  try {
    const operations = [await sdkNewThread.setup(server, options.concurrency), await a2aSend.setup(server, options.concurrency)];
    const started = performance.now();
    const elapsed = () => (performance.now() - started) / 1000;
    let ops = 0;
    const lane = async (id: number) => {
      const op = operations[id % operations.length]!;
      while (elapsed() < options.seconds) {
        await op(id);
        ops += 1;
      }
    };
    const samples: SoakResult["samples"] = [];
    const sampler = async () => {
      while (elapsed() < options.seconds) {
        samples.push({ t: elapsed(), rssMb: rssMb(server.pid) });
        await sleep(options.sampleEverySeconds * 1000);
      }
      samples.push({ t: elapsed(), rssMb: rssMb(server.pid) });
    };
    await Promise.all([sampler(), ...Array.from({ length: options.concurrency }, (_, id) => lane(id))]);
    return summarize(options, samples, ops);
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

function summarize(options: SoakOptions, samples: SoakResult["samples"], ops: number): SoakResult {
  const after = samples.filter((s) => s.t >= options.warmUpSeconds);
  const window = after.length >= 2 ? after : samples.slice(-2);
  const slopePerSecond = medianSlope(window.map((s) => [s.t, s.rssMb]));
  const rssAfterWarmUpMb = window[0]!.rssMb;
  const windowSeconds = window.at(-1)!.t - window[0]!.t;
  return {
    driver: "sqlite",
    seconds: options.seconds,
    warmUpSeconds: options.warmUpSeconds,
    concurrency: options.concurrency,
    ops,
    samples,
    rssAfterWarmUpMb,
    rssEndMb: samples.at(-1)!.rssMb,
    slopeMbPerMinute: slopePerSecond * 60,
    growthFraction: (slopePerSecond * windowSeconds) / rssAfterWarmUpMb,
  };
}

/**
 * Theil–Sen: the median of the slopes between every two points. A heap that shrinks once (a major GC) and
 * grows back is a sawtooth, which tilts a least-squares line; the median slope follows the level.
 */
function medianSlope(points: [number, number][]): number {
  const slopes: number[] = [];
  for (let i = 0; i < points.length; i++) {
    for (let j = i + 1; j < points.length; j++) {
      const dx = points[j]![0] - points[i]![0];
      if (dx > 0) slopes.push((points[j]![1] - points[i]![1]) / dx);
    }
  }
  slopes.sort((a, b) => a - b);
  return slopes.length === 0 ? 0 : slopes[slopes.length >> 1]!;
}

/** Resident set size of one process in MB: /proc on Linux, `ps` elsewhere. */
export function rssMb(pid: number): number {
  try {
    const line = readFileSync(`/proc/${pid}/status`, "utf8").match(/^VmRSS:\s+(\d+) kB/m);
    if (line) return Number(line[1]) / 1024;
  } catch {
    /* no /proc */
  }
  return Number(execFileSync("ps", ["-o", "rss=", "-p", String(pid)], { encoding: "utf8" }).trim()) / 1024;
}
