import { projectConfig } from "../../vitest.shared.js";

export default projectConfig(import.meta.dirname, {
  globalSetup: ["../../libs/storage-postgres/src/testing/global-setup.ts"],
  // Each test spawns the real CLI (tsx, LangChain, a storage) on a 2-core machine shared with the
  // other projects' tests: start-up alone can take several seconds under load.
  testTimeout: 120_000,
});
