import { resolve } from "node:path";
import { parseArgs } from "node:util";
import type { Budget } from "./measure.js";
import type { GrowthDriver } from "./results.js";
import type { SoakOptions } from "./soak.js";

/** How much of everything one run measures. */
export interface Profile {
  name: "full" | "quick";
  /**
   * Unmeasured operations before each sequential measurement, time-boxed like a measurement: V8 optimizes
   * a server's hot paths only after some thousands of calls, so a handful of warm-up calls measures its
   * interpreter and first-call costs (lazy imports, schema compiles) instead.
   */
  warmUp: Budget;
  sequential: Budget;
  concurrencies: number[];
  /** At concurrency `c`: every lane does at least two operations. */
  concurrent(concurrency: number): Budget;
  growth: { drivers: GrowthDriver[]; sizes: number[]; rounds: number };
  soak: SoakOptions;
}

const CONCURRENCIES = [16, 64];

export function fullProfile(soakSeconds = 600): Profile {
  return {
    name: "full",
    warmUp: { minOps: 5, maxOps: 1_000, maxSeconds: 1 },
    sequential: { minOps: 15, maxOps: 500, maxSeconds: 1.2 },
    concurrencies: CONCURRENCIES,
    concurrent: (c) => ({ minOps: 2 * c, maxOps: 50 * c, maxSeconds: 1.2 }),
    growth: { drivers: ["sqlite", "postgres"], sizes: [1_000, 10_000, 100_000], rounds: 50 },
    soak: soakOptions(soakSeconds, 4),
  };
}

/** A check that everything works end to end, in under two minutes: no figures to keep. */
export function quickProfile(soakSeconds = 10): Profile {
  return {
    name: "quick",
    warmUp: { minOps: 2, maxOps: 20, maxSeconds: 0.1 },
    sequential: { minOps: 5, maxOps: 100, maxSeconds: 0.2 },
    concurrencies: CONCURRENCIES,
    concurrent: (c) => ({ minOps: c, maxOps: 4 * c, maxSeconds: 0.2 }),
    growth: { drivers: ["sqlite", "postgres"], sizes: [100, 1_000], rounds: 5 },
    soak: soakOptions(soakSeconds, 2),
  };
}

function soakOptions(seconds: number, concurrency: number): SoakOptions {
  // A sixth of the run, at most a minute, is warm-up; a sample every 5 s (every second when short).
  return {
    seconds,
    warmUpSeconds: Math.min(60, seconds / 6),
    sampleEverySeconds: seconds >= 120 ? 5 : 1,
    concurrency,
  };
}

export interface BenchArgs {
  profile: Profile;
  /** The markdown file to write (its charts go in the folder of the same name without `.md`). */
  out: string;
}

export const USAGE = `Usage: npm run bench -- [--quick] [--out <file>] [--soak-seconds <n>] [--growth-sizes <n,n,...>]

  --quick              few iterations, growth at 100 and 1,000 runs, a 10 s soak: a check, not figures
  --out <file>         write the report there (default: docs/benchmarks.md; quick: tools/bench/.peers/quick.md,
                       so a check never replaces the figures); charts go beside it
  --soak-seconds <n>   how long the RSS soak lasts (default: 600; quick: 10)
  --growth-sizes <l>   stored runs at which growth is measured (default: 1000,10000,100000)
`;

export function parseBenchArgs(argv: string[], repoRoot: string): BenchArgs | "help" {
  const { values } = parseArgs({
    args: argv,
    options: {
      quick: { type: "boolean" },
      out: { type: "string" },
      "soak-seconds": { type: "string" },
      "growth-sizes": { type: "string" },
      help: { type: "boolean", short: "h" },
    },
    strict: true,
  });
  if (values.help) return "help";
  const soakSeconds = values["soak-seconds"] === undefined ? undefined : positive("--soak-seconds", values["soak-seconds"]);
  const profile = values.quick ? quickProfile(soakSeconds) : fullProfile(soakSeconds);
  if (values["growth-sizes"] !== undefined) {
    profile.growth.sizes = values["growth-sizes"].split(",").map((size) => positive("--growth-sizes", size));
  }
  const defaultOut = values.quick ? "tools/bench/.peers/quick.md" : "docs/benchmarks.md";
  return { profile, out: resolve(values.out ?? resolve(repoRoot, defaultOut)) };
}

function positive(flag: string, text: string): number {
  const value = Number(text);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${flag}: expected a positive number, got '${text}'`);
  return value;
}
