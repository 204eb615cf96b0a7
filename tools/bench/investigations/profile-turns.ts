/**
 * Cuts a server's `.cpuprofile` (long-thread.ts `--cpu-prof`) to the samples of some turns, using the send
 * start times that `--json` kept (µs of CLOCK_MONOTONIC, the profile's clock), and prints CPU ms per turn by
 * function: inclusive ("total") and self, for our code (libs/, apps/) by default, or the top self time of
 * everything with `--self`. The last window is the one listed; earlier windows are shown beside it.
 *
 *   npx tsx tools/bench/investigations/profile-turns.ts <file.cpuprofile> <run.json> <driver> <api> 6-15 901-1000 [--self] [--top 40]
 *
 * Async stacks end at `runMicrotasks`: inclusive time of a caller misses what its awaited callees did later.
 */
import { readFileSync } from "node:fs";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}
interface Run {
  series: { driver: string; api: string; ttl: string; sends: number[]; sendStartsUs: number[] }[];
}

const argv = process.argv.slice(2);
const [profFile, runFile, driver, api] = argv;
if (!profFile || !runFile || !driver || !api) {
  throw new Error("usage: profile-turns.ts <file.cpuprofile> <run.json> <driver> <api> <a-b>... [--self] [--top N] [--ttl off]");
}
const option = (name: string) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : undefined);
const windows = argv.filter((a) => /^\d+-\d+$/.test(a)).map((a) => a.split("-").map(Number) as [number, number]);
const top = Number(option("--top") ?? 40);
const ttl = option("--ttl") ?? "off";
const profile = JSON.parse(readFileSync(profFile, "utf8")) as Profile;
const run = JSON.parse(readFileSync(runFile, "utf8")) as Run;
const series = run.series.find((s) => s.driver === driver && s.api === api && s.ttl === ttl);
if (!series) throw new Error(`${runFile} has no ${driver}/${api}/ttl ${ttl}`);
if (windows.length === 0) throw new Error("name at least one window of turns, e.g. 901-1000");

const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const child of n.children ?? []) parent.set(child, n.id);
const short = (url: string) =>
  url
    .replace(/^file:\/\/.*?\/(libs|apps)\//, "$1/")
    .replace(/.*node_modules\//, "")
    .replace(/\?tsx-namespace=.*/, "");
const keyOf = (n: ProfileNode) => `${short(n.callFrame.url)}:${n.callFrame.functionName || "(anonymous)"}`;
const times: number[] = [];
let t = profile.startTime;
for (const delta of profile.timeDeltas) times.push((t += delta));

function cut([first, last]: [number, number]) {
  const from = series!.sendStartsUs[first - 1]!;
  const to = series!.sendStartsUs[last] ?? series!.sendStartsUs[last - 1]! + series!.sends[last - 1]! * 1000;
  const self = new Map<string, number>();
  const total = new Map<string, number>();
  let busy = 0;
  const turns = last - first + 1;
  for (let i = 0; i < profile.samples.length; i++) {
    if (times[i]! < from || times[i]! >= to) continue;
    const ms = (profile.timeDeltas[i + 1] ?? 0) / 1000 / turns;
    const leaf = nodes.get(profile.samples[i]!)!;
    if (leaf.callFrame.functionName === "(idle)") continue;
    busy += ms;
    self.set(keyOf(leaf), (self.get(keyOf(leaf)) ?? 0) + ms);
    const seen = new Set<string>();
    for (let id: number | undefined = leaf.id; id !== undefined; id = parent.get(id)) {
      const key = keyOf(nodes.get(id)!);
      if (seen.has(key)) continue;
      seen.add(key);
      total.set(key, (total.get(key) ?? 0) + ms);
    }
  }
  return { first, last, self, total, busy };
}

const cuts = windows.map(cut);
const last = cuts.at(-1)!;
for (const c of cuts) console.log(`turns ${c.first}-${c.last}: busy ${c.busy.toFixed(1)} ms per turn`);
const earlier = cuts.slice(0, -1);
if (argv.includes("--self")) {
  console.log(["self ms/turn", ...earlier.map((c) => `self @${c.first}-${c.last}`), "function"].join("\t"));
  for (const [key, ms] of [...last.self].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    console.log([ms.toFixed(2), ...earlier.map((c) => (c.self.get(key) ?? 0).toFixed(2)), key].join("\t"));
  }
} else {
  console.log(["total ms/turn", "self ms/turn", ...earlier.map((c) => `total @${c.first}-${c.last}`), "function"].join("\t"));
  const ours = [...last.total].filter(([key]) => key.startsWith("libs/") || key.startsWith("apps/"));
  for (const [key, ms] of ours.sort((a, b) => b[1] - a[1]).slice(0, top)) {
    console.log(
      [ms.toFixed(2), (last.self.get(key) ?? 0).toFixed(2), ...earlier.map((c) => (c.total.get(key) ?? 0).toFixed(2)), key].join("\t"),
    );
  }
}
