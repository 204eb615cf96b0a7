import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as vega from "vega";
import { compile, type TopLevelSpec } from "vega-lite";
import type { BenchResults } from "../results.js";
import { SCENARIOS } from "../scenarios/index.js";
import { driverName } from "./targets.js";

/** A chart file (under the charts folder) and what it shows. */
export interface Chart {
  file: string;
  title: string;
}

/**
 * One SVG per scenario, one for growth, one for the soak, rendered headlessly with vega-lite → vega
 * (`renderer: "none"`, no canvas, no browser). Returns the files by key: a scenario id, "growth", "soak".
 */
export async function writeCharts(results: BenchResults, dir: string): Promise<Record<string, Chart>> {
  mkdirSync(dir, { recursive: true });
  const charts: Record<string, Chart> = {};
  const write = async (key: string, title: string, spec: TopLevelSpec) => {
    const file = `${key}.svg`;
    writeFileSync(join(dir, file), await render(spec));
    charts[key] = { file, title };
  };
  for (const scenario of SCENARIOS) {
    const rows = results.scenarios.filter((r) => r.scenario === scenario.id);
    if (rows.length > 0) await write(scenario.id, scenario.title, scenarioSpec(scenario.title, rows));
  }
  await write("growth", "Reads as the store grows", growthSpec(results));
  await write("soak", "RSS of our server under steady load", soakSpec(results));
  return charts;
}

async function render(spec: TopLevelSpec): Promise<string> {
  const view = new vega.View(vega.parse(compile(spec).spec), { renderer: "none" });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}

const WIDTH = 300;

/** Latency (p50, p95) above throughput (16, 64 concurrent) per server, on log scales: peers differ by 100×. */
function scenarioSpec(title: string, rows: BenchResults["scenarios"]): TopLevelSpec {
  const latency = rows.flatMap((r) => [
    { server: r.server, measure: "p50", ms: r.sequential.p50 },
    { server: r.server, measure: "p95", ms: r.sequential.p95 },
  ]);
  const throughput = rows.flatMap((r) =>
    r.throughput.map((t) => ({ server: r.server, measure: `${t.concurrency} concurrent`, ops: t.opsPerSec })),
  );
  // Dots, not bars: on a log scale a bar's length starts at an arbitrary minimum and reads as a false ratio.
  // Not stacked: a stack starts at zero, which a log scale cannot place.
  const dots = (field: string, axis: string, values: object[]) => ({
    data: { values },
    mark: { type: "point" as const, filled: true, size: 90 },
    width: WIDTH,
    height: 28 * rows.length,
    encoding: {
      // Room for "a2a-js + LangGraph (PostgresSaver)" (the default limit cuts names at 180 px).
      y: { field: "server", type: "nominal" as const, title: null, sort: null, axis: { labelLimit: 280 } },
      yOffset: { field: "measure", type: "nominal" as const },
      x: { field, type: "quantitative" as const, title: axis, scale: { type: "log" as const }, stack: null },
      color: { field: "measure", type: "nominal" as const, title: null },
      tooltip: { field, type: "quantitative" as const, format: ".3~r" },
    },
  });
  return {
    $schema: "https://vega.github.io/schema/vega-lite/v6.json",
    title,
    background: "white",
    vconcat: [dots("ms", "sequential latency, ms (log)", latency), dots("ops", "throughput, ops/s (log)", throughput)],
    resolve: { scale: { color: "independent" } },
  };
}

function growthSpec(results: BenchResults): TopLevelSpec {
  const values = results.growth.map((g) => ({ runs: g.runs, p50: g.latency.p50, operation: g.operation, driver: driverName(g.driver) }));
  return {
    $schema: "https://vega.github.io/schema/vega-lite/v6.json",
    title: "p50 of each read as the store grows",
    background: "white",
    data: { values },
    facet: { column: { field: "driver", type: "nominal", title: null } },
    spec: {
      width: WIDTH,
      height: 200,
      mark: { type: "line", point: true },
      encoding: {
        x: { field: "runs", type: "quantitative", title: "stored runs (log)", scale: { type: "log" } },
        y: { field: "p50", type: "quantitative", title: "p50, ms" },
        color: { field: "operation", type: "nominal", title: null, legend: { labelLimit: 240, orient: "bottom" } },
      },
    },
  };
}

function soakSpec(results: BenchResults): TopLevelSpec {
  const { soak } = results;
  return {
    $schema: "https://vega.github.io/schema/vega-lite/v6.json",
    title: `RSS of our server (SQLite), ${soak.concurrency} lanes of steady load`,
    background: "white",
    width: WIDTH * 1.5,
    height: 220,
    layer: [
      {
        data: { values: soak.samples },
        mark: { type: "line", point: true },
        encoding: {
          x: { field: "t", type: "quantitative", title: "seconds under load" },
          y: { field: "rssMb", type: "quantitative", title: "RSS, MB", scale: { zero: false } },
        },
      },
      {
        data: { values: [{ t: soak.warmUpSeconds }] },
        mark: { type: "rule", strokeDash: [4, 4], color: "gray" },
        encoding: { x: { field: "t", type: "quantitative" } },
      },
    ],
  };
}
