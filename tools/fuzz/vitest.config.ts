import { projectConfig } from "../../vitest.shared.js";

/**
 * The bounded fuzz run (src/fuzz.test.ts) against a real `agent-server dev` on SQLite: no PostgreSQL, so
 * none of the server's global setup. Its servers start through the real CLI (tsx, LangChain) on a 2-core
 * machine shared with the other projects' tests: start-up alone can take several seconds under load.
 */
export default projectConfig(import.meta.dirname, { testTimeout: 120_000 });
