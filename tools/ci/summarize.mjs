// Adds up the per-project vitest JSON reports in TEST_RESULTS_DIR and prints the line CI reads:
// "N passed, N failed". A project that ran but wrote no report counts as one failure, so a crashed
// runner cannot pass silently.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const dir = process.argv[2] ?? process.env.TEST_RESULTS_DIR;
const expected = (process.argv[3] ?? "").split(",").filter(Boolean);
let passed = 0;
let failed = 0;
const seen = new Set();
for (const file of readdirSync(dir).filter((f) => f.endsWith(".json"))) {
  const report = JSON.parse(readFileSync(join(dir, file), "utf8"));
  seen.add(file.replace(/\.json$/, ""));
  passed += report.numPassedTests ?? 0;
  failed += report.numFailedTests ?? 0;
  // A suite that failed to load has no tests in it; count each such file once.
  for (const suite of report.testResults ?? []) {
    if (suite.status === "failed" && (suite.assertionResults ?? []).length === 0) failed += 1;
  }
}
// Failures outside the test runner (a failed type-check) count too, so the line never reads green.
failed += Number(process.env.EXTRA_FAILED ?? 0);
for (const project of expected) {
  if (!seen.has(project)) {
    console.error(`no test report from ${project}`);
    failed += 1;
  }
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed > 0 ? 1 : 0);
