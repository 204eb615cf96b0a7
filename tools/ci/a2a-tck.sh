#!/usr/bin/env bash
# The A2A TCK (a2aproject/a2a-tck) against `agent-server dev`, one category per argument, through the TCK's
# own run.sh, which lives outside the project: it describes the A2A specification, it is not ours to copy.
# Each category's counts become a report in TEST_RESULTS_DIR that summarize.mjs adds up; a run that prints
# no counts is one failure. Where no TCK is on the machine (A2A_TCK unset, no ../shared/conformance/a2a-tck
# beside the checkout) it says so and reports nothing.
set -uo pipefail
cd "$(dirname "$0")/../.."
dir=""
for candidate in "${A2A_TCK:-}" ../shared/conformance/a2a-tck; do
  if [ -n "$candidate" ] && [ -x "$candidate/run.sh" ]; then dir=$candidate; break; fi
done
if [ -z "$dir" ]; then
  echo "a2a-tck: not on this machine (set A2A_TCK to its folder): not run"
  exit 0
fi
results=${TEST_RESULTS_DIR:-.test-results}
mkdir -p "$results"
status=0
for category in "$@"; do
  # Captured, then echoed: `tee /dev/stderr` would reopen (and truncate) a log file stderr points at.
  output=$("$dir/run.sh" "$category" 2>&1)
  printf '%s\n' "$output"
  line=$(printf '%s\n' "$output" | grep -E "^a2a-tck $category: [0-9]+ passed, [0-9]+ failed$" | tail -1)
  passed=$(echo "$line" | grep -oE "[0-9]+ passed" | grep -oE "[0-9]+")
  failed=$(echo "$line" | grep -oE "[0-9]+ failed" | grep -oE "[0-9]+")
  if [ -z "$line" ]; then passed=0; failed=1; echo "a2a-tck $category: no result (see .conformance/a2a-tck-$category.log)"; fi
  echo "{\"numPassedTests\":${passed:-0},\"numFailedTests\":${failed:-0}}" >"$results/a2a-tck-$category.json"
  [ "${failed:-0}" = 0 ] || status=1
done
exit $status
