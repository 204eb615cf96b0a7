import { fileURLToPath } from "node:url";
import { projectConfig } from "../../vitest.shared.js";

/**
 * One PostgreSQL for the whole run: POSTGRES_URL when set, else one embedded server (see README).
 * Other projects reuse it with the same two lines (the module is resolved through the package, so the
 * config never loads TypeScript from node_modules itself).
 */
const postgresGlobalSetup = fileURLToPath(new URL("./global-setup.ts", import.meta.resolve("@agent-server/storage-postgres/testing")));

export default projectConfig(import.meta.dirname, { globalSetup: [postgresGlobalSetup] });
