import { Client } from "@langchain/langgraph-sdk";
import type { Storage } from "@agent-server/core";
import type { Engine, EngineOptions } from "@agent-server/engine";
import { startEngine } from "@agent-server/engine/testing";
import { createApp } from "../../src/app.js";
import type { AppDeps } from "../../src/app-env.js";
import { listen } from "../../src/server.js";

export interface TestServer {
  url: string;
  client: Client;
  engine: Engine;
  storage: Storage;
  close(): Promise<void>;
}

/**
 * The real HTTP server on a loopback port over `storage`, with the engine's test graphs
 * (echo, approval, slow, failing, parent, whoami, tool-caller, chat), and an official SDK client pointed at it.
 */
export async function startTestServer(
  storage: Storage,
  options: {
    engine?: Partial<EngineOptions>;
    app?: Partial<AppDeps>;
    /** Wraps the handling of every request (the query budget tests run each in the context of its call). */
    around?: (handle: () => Promise<Response>) => Promise<Response>;
  } = {},
): Promise<TestServer> {
  // As the server wires it: relative webhooks are delivered through this app, in-process.
  // `app` is created right after the engine; the loopback only runs once requests flow.
  const engine = await startEngine(storage, { loopback: (request) => app.fetch(request), ...options.engine });
  const app = createApp({ engine, storage, version: "test", dev: true, ...options.app });
  const around = options.around;
  const fetch = around ? (request: Request) => around(async () => app.fetch(request)) : app.fetch;
  const server = await listen(fetch, { host: "127.0.0.1", port: 0 });
  return {
    url: server.url,
    client: new Client({ apiUrl: server.url }),
    engine,
    storage,
    async close() {
      await server.close();
      await engine.stop(0);
    },
  };
}
export { CHROMIUM, launchChromium } from "./chromium.js";
