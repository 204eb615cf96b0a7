import type { CampaignReport, FailureGroup } from "./campaign.js";

const SHOWN_BODY = 300;

function cut(text: string | undefined, limit = SHOWN_BODY): string {
  if (text === undefined) return "(none)";
  return text.length > limit ? `${text.slice(0, limit)}… (${text.length} chars)` : text;
}

/** A failure's reproduction: the request as sent (body cut), what came back, and how to replay it. */
export function reproduction(group: FailureGroup): string {
  const { request, response, origin } = group.example;
  const headers = Object.entries(request.headers)
    .map(([name, value]) => `${name}: ${cut(value, 60)}`)
    .join("; ");
  const replay = origin.sweep
    ? `request ${origin.path} of the fixed sweep: FUZZ_ONLY='${origin.target}' npm run fuzz`
    : origin.path
      ? `FUZZ_REPLAY='${origin.target}@${origin.seed}:${origin.path}'`
      : "(found by the after-batch check; rerun the batch with FUZZ_ONLY)";
  return [
    `  ${request.method} ${cut(request.path, 200)}`,
    `  headers: ${headers || "(none)"}`,
    `  body: ${cut(request.body)}`,
    `  answer: ${response.timedOut ? "timeout" : response.status} ${cut(response.body, 200)}`,
    `  input classes: ${group.inputClasses.join(" | ")}`,
    `  seen ${group.count}×; replay: ${replay}`,
  ].join("\n");
}

/** The distinct failures, one block each. */
export function formatFailures(groups: FailureGroup[]): string {
  return groups
    .map((group, index) => `${index + 1}. [${group.oracle}] ${group.route} → ${group.status} ${group.detail}\n${reproduction(group)}`)
    .join("\n");
}

/** The summary for docs/reliability.md: requests and statuses per route, failures, warnings. */
export function formatReport(report: CampaignReport): string {
  const total = Object.values(report.requests).reduce((a, b) => a + b, 0);
  const lines = [
    `## Fuzz campaign: ${report.server}`,
    "",
    `seed ${report.seed}, ${report.runsPerTarget} runs per target, ${total} requests in ${(report.durationMs / 1000).toFixed(1)} s; ` +
      `${report.failures.length} distinct failures, ${report.warnings.length} error-shape warnings, ` +
      `${report.inconclusiveWrites} refused requests with background writes (row check skipped).`,
    "",
    "| route | requests | statuses |",
    "| --- | ---: | --- |",
    ...Object.entries(report.requests).map(([route, count]) => {
      const statuses = Object.entries(report.statuses[route] ?? {})
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([status, n]) => `${status}×${n}`)
        .join(" ");
      return `| ${route.replace(/\|/g, "\\|")} | ${count} | ${statuses} |`;
    }),
    "",
  ];
  if (Object.keys(report.timeouts).length > 0) {
    lines.push(
      `Timeouts (no full answer within the request limit): ${Object.entries(report.timeouts)
        .map(([r, n]) => `${r} ×${n}`)
        .join(", ")}`,
      "",
    );
  }
  lines.push("### Failures", "", report.failures.length ? formatFailures(report.failures) : "none", "");
  if (report.warnings.length) lines.push("### Error-shape warnings", "", formatFailures(report.warnings), "");
  return lines.join("\n");
}
