/**
 * A strict parser of the Prometheus text exposition format (version 0.0.4), for tests: every line must
 * be a `# HELP`/`# TYPE` line, a comment, blank, or a sample of a family declared by `# TYPE` before it;
 * label values are unescaped; a series may appear once; histogram buckets must be cumulative and end
 * with `le="+Inf"` equal to `_count`. Anything else throws with the line number.
 */

export type MetricType = "counter" | "gauge" | "histogram" | "summary" | "untyped";

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface MetricFamily {
  name: string;
  type: MetricType;
  help: string;
  samples: Sample[];
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const TYPES = new Set<MetricType>(["counter", "gauge", "histogram", "summary", "untyped"]);
const SUFFIXES: Record<MetricType, string[]> = {
  counter: ["", "_total"],
  gauge: [""],
  untyped: [""],
  histogram: ["_bucket", "_sum", "_count"],
  summary: ["", "_sum", "_count"],
};

export class Exposition {
  constructor(readonly families: Map<string, MetricFamily>) {}

  family(name: string): MetricFamily {
    const family = this.families.get(name);
    if (!family) throw new Error(`no metric family ${name}`);
    return family;
  }

  /** The sum of the samples named `name` whose labels include `labels` (0 when none). */
  value(name: string, labels: Record<string, string> = {}): number {
    let sum = 0;
    for (const family of this.families.values()) {
      for (const sample of family.samples) {
        if (sample.name === name && Object.entries(labels).every(([k, v]) => sample.labels[k] === v)) sum += sample.value;
      }
    }
    return sum;
  }
}

export function parsePrometheusText(text: string): Exposition {
  const families = new Map<string, MetricFamily>();
  const seen = new Set<string>();
  const lines = text.split("\n");
  lines.forEach((line, index) => {
    const at = `line ${index + 1} (${JSON.stringify(line)})`;
    if (line.trim() === "") return;
    if (line.startsWith("#")) {
      const match = /^# (HELP|TYPE) (\S+) ?(.*)$/.exec(line);
      if (!match) return; // an ordinary comment
      const [, kind, name, rest] = match;
      if (!NAME.test(name)) throw new Error(`${at}: bad metric name`);
      const family = families.get(name) ?? { name, type: "untyped" as MetricType, help: "", samples: [] };
      if (kind === "TYPE") {
        if (!TYPES.has(rest as MetricType)) throw new Error(`${at}: unknown type`);
        if (family.samples.length > 0) throw new Error(`${at}: TYPE after samples`);
        family.type = rest as MetricType;
      } else {
        family.help = rest.replace(/\\n/g, "\n").replace(/\\\\/g, "\\");
      }
      families.set(name, family);
      return;
    }
    const sample = parseSample(line, at);
    const family = familyOf(families, sample.name);
    if (!family) throw new Error(`${at}: sample of no declared family`);
    const key = `${sample.name}${JSON.stringify(Object.entries(sample.labels).sort())}`;
    if (seen.has(key)) throw new Error(`${at}: duplicate series`);
    seen.add(key);
    family.samples.push(sample);
  });
  for (const family of families.values()) if (family.type === "histogram") checkHistogram(family);
  return new Exposition(families);
}

function familyOf(families: Map<string, MetricFamily>, sampleName: string): MetricFamily | undefined {
  for (const family of families.values()) {
    if (SUFFIXES[family.type].some((suffix) => family.name + suffix === sampleName)) return family;
  }
  return undefined;
}

function parseSample(line: string, at: string): Sample {
  const nameMatch = /^([a-zA-Z_:][a-zA-Z0-9_:]*)/.exec(line);
  if (!nameMatch) throw new Error(`${at}: no metric name`);
  const name = nameMatch[1];
  let i = name.length;
  const labels: Record<string, string> = {};
  if (line[i] === "{") {
    i += 1;
    while (line[i] !== "}") {
      const labelMatch = /^([^=]+)="/.exec(line.slice(i));
      if (!labelMatch || !LABEL_NAME.test(labelMatch[1])) throw new Error(`${at}: bad label at column ${i}`);
      i += labelMatch[0].length;
      let value = "";
      for (;;) {
        const c = line[i];
        if (c === undefined) throw new Error(`${at}: unterminated label value`);
        i += 1;
        if (c === '"') break;
        if (c === "\\") {
          const escaped = line[i];
          i += 1;
          if (escaped === "n") value += "\n";
          else if (escaped === "\\" || escaped === '"') value += escaped;
          else throw new Error(`${at}: bad escape`);
        } else value += c;
      }
      if (labelMatch[1] in labels) throw new Error(`${at}: label repeated`);
      labels[labelMatch[1]] = value;
      if (line[i] === ",") i += 1;
      else if (line[i] !== "}") throw new Error(`${at}: expected , or }`);
    }
    i += 1;
  }
  const rest = line.slice(i);
  const valueMatch = /^ (\S+)( -?\d+)?$/.exec(rest);
  if (!valueMatch) throw new Error(`${at}: expected " <value> [timestamp]"`);
  return { name, labels, value: parseValue(valueMatch[1], at) };
}

/** Values as Prometheus reads them (Go's ParseFloat): Inf and NaN in any case (prom-client writes "Nan"). */
function parseValue(text: string, at: string): number {
  if (/^\+?inf(inity)?$/i.test(text)) return Infinity;
  if (/^-inf(inity)?$/i.test(text)) return -Infinity;
  if (/^nan$/i.test(text)) return NaN;
  if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text)) throw new Error(`${at}: bad value`);
  return Number(text);
}

/** Per label set (without `le`): buckets non-decreasing in `le`, ending with +Inf equal to `_count`. */
function checkHistogram(family: MetricFamily): void {
  const groups = new Map<string, { buckets: [number, number][]; count?: number; sum?: number }>();
  for (const sample of family.samples) {
    const { le, ...rest } = sample.labels;
    const key = JSON.stringify(Object.entries(rest).sort());
    const group = groups.get(key) ?? { buckets: [] };
    groups.set(key, group);
    if (sample.name.endsWith("_bucket")) {
      if (le === undefined) throw new Error(`${family.name}: bucket without le`);
      group.buckets.push([parseValue(le, family.name), sample.value]);
    } else if (sample.name.endsWith("_count")) group.count = sample.value;
    else group.sum = sample.value;
  }
  for (const [key, group] of groups) {
    const buckets = group.buckets.sort((a, b) => a[0] - b[0]);
    const last = buckets.at(-1);
    if (!last || last[0] !== Infinity) throw new Error(`${family.name}${key}: no +Inf bucket`);
    if (group.count === undefined || group.sum === undefined) throw new Error(`${family.name}${key}: no _count or _sum`);
    if (last[1] !== group.count) throw new Error(`${family.name}${key}: +Inf bucket ${last[1]} != _count ${group.count}`);
    for (let i = 1; i < buckets.length; i += 1) {
      if (buckets[i][1] < buckets[i - 1][1]) throw new Error(`${family.name}${key}: buckets not cumulative`);
    }
  }
}
