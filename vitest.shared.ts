import { basename } from "node:path";
import { defineConfig, type ViteUserConfig } from "vitest/config";

/**
 * Vitest settings every project shares. When TEST_RESULTS_DIR is set (.ci/run sets it), each project
 * also writes a JSON report there, which tools/ci/summarize.mjs adds up into the CI's
 * "N passed, N failed" line.
 */
export function projectConfig(projectDir: string, test: NonNullable<ViteUserConfig["test"]> = {}) {
  const resultsDir = process.env.TEST_RESULTS_DIR;
  const name = basename(projectDir);
  return defineConfig({
    test: {
      name,
      include: ["src/**/*.test.ts"],
      testTimeout: 30_000,
      hookTimeout: 60_000,
      reporters: resultsDir ? ["default", "json"] : ["default"],
      outputFile: resultsDir ? { json: `${resultsDir}/${name}.json` } : undefined,
      ...test,
    },
  });
}
