import { fileURLToPath } from "node:url";
import { projectConfig } from "../../vitest.shared.js";

const postgresGlobalSetup = fileURLToPath(import.meta.resolve("@agent-server/testing/postgres/global-setup"));

// The tarball test builds the package, installs it into a fresh project (better-sqlite3 compiles from
// source there: ~90 s on two cores) and runs the server from it: minutes, not seconds.
export default projectConfig(import.meta.dirname, {
  globalSetup: [postgresGlobalSetup],
  testTimeout: 300_000,
  hookTimeout: 600_000,
});
