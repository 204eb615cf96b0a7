import { fileURLToPath } from "node:url";
import { projectConfig } from "../../vitest.shared.js";

/**
 * One PostgreSQL for the whole run: POSTGRES_URL when set, else one embedded server (libs/testing).
 * Only the path is resolved here, through the package's exports: the config runs in plain Node, which
 * cannot load the setup's TypeScript; vitest loads it.
 */
const postgresGlobalSetup = fileURLToPath(import.meta.resolve("@agent-server/testing/postgres/global-setup"));

export default projectConfig(import.meta.dirname, {
  include: ["src/**/*.test.ts", "test/**/*.test.ts"],
  globalSetup: [postgresGlobalSetup],
  // Each test spawns the real CLI (tsx, LangChain, a storage) on a 2-core machine shared with the
  // other projects' tests: start-up alone can take several seconds under load.
  testTimeout: 120_000,
});
