import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import {
  bundleUi,
  createApp,
  listen,
  loadAuth,
  requestAuthenticator,
  type RunningServer,
  type UiBundles,
  type UserHttpApp,
} from "@agent-server/agent-protocol";
import { InvalidInputError, type FieldCipher, type Storage } from "@agent-server/core";
import { installRemoteAgentHooks } from "@agent-server/remote-agent/hooks";
import {
  applyEnv,
  Engine,
  loadLangGraphConfig,
  openStoreIndex,
  outboundUrlPolicy,
  ttlOptions,
  systemAssistantDefaultsFromEnv,
  unsupportedConfigKeys,
  WEBHOOK_SECRET_ENV,
  webhookSigningKey,
  type LoadedConfig,
} from "@agent-server/engine";
import { createInspector, INSPECTOR_PATH, inspectorEnabled, withInspector } from "@agent-server/inspector";
import { a2aRoutes, startA2AGrpcServer, type A2AGrpcServerOptions, type RunningA2AGrpcServer } from "@agent-server/interop";
import { parseCli, UsageError, type CliOptions } from "../cli/index.js";
import { registerSdkLogger, runLogger, serverMetrics, type Logger, type Tracing } from "../observability/index.js";
import { dataDir, openStorage } from "../storage/index.js";
import { VERSION } from "../version.js";
import { a2aRouteOptions } from "./a2a-card.js";
import { loadHttpApp } from "./http-app.js";
import { appFetch, bindSdkLoopback } from "./loopback.js";
import { announceMcp, mcpMount } from "./mcp-config.js";

export interface StartedServer {
  url: string;
  /** The A2A gRPC binding's `host:port` when it runs (--grpc-port, langgraph.json a2a.grpc_port). */
  grpcUrl?: string;
  engine: Engine;
  storage: Storage;
  /**
   * Drains (`Engine.stop`: the readiness route answers 503, reads and streams are still served, runs
   * still executing after `graceMs` + `drainMs` are handed back to the queue), then stops the listeners
   * and closes the storage.
   */
  stop(graceMs: number, drainMs?: number): Promise<void>;
}

/** The server, its stop also exporting the spans still buffered (after the storage closed: its last statements too). */
export function withTracingShutdown(server: StartedServer, tracing: Tracing | undefined): StartedServer {
  if (!tracing) return server;
  const stop = server.stop.bind(server);
  server.stop = async (graceMs, drainMs) => {
    try {
      await stop(graceMs, drainMs);
    } finally {
      await tracing.shutdown();
    }
  };
  return server;
}

/** The official server's `BG_JOB_TIMEOUT_SECS` default: a run may execute for an hour. */
const DEFAULT_RUN_TIMEOUT_SECONDS = 3600;
/**
 * Reads langgraph.json and applies its `env` before anything reads the environment; the options taken
 * from the environment (database URL, port, workers, run time limit) are read again with it (see `CliOptions.argv`).
 */
export async function readProject(options: CliOptions): Promise<LoadedConfig | undefined> {
  const path = resolve(options.config);
  if (!existsSync(path)) {
    // Commands that only touch the storage run without a project unless --config names one.
    if (options.command !== "dev" && options.command !== "serve" && options.command !== "store" && !options.configGiven) return undefined;
    throw new UsageError(`config file not found: ${path} (pass --config <path to langgraph.json>)`);
  }
  const loaded = await loadLangGraphConfig(path);
  applyEnv(loaded.env);
  if (options.argv && Object.keys(loaded.env).length > 0) {
    const again = parseCli(options.argv);
    if (again.kind === "run") {
      const { databaseUrl, databaseWaitSeconds, port, workers, runTimeoutSeconds } = again.options;
      Object.assign(options, { databaseUrl, databaseWaitSeconds, port, workers, runTimeoutSeconds });
    }
  }
  return loaded;
}

/**
 * `dev` and `serve`: storage, engine with the project's graphs, custom auth and routes, the HTTP API.
 * Whatever was opened is closed again when a later step fails, so a failed start leaves nothing behind.
 */
export async function startServer(options: CliOptions, project: LoadedConfig, logger: Logger): Promise<StartedServer> {
  const { config, cwd } = project;
  const dev = options.command === "dev";
  // Read before anything is opened: a malformed LANGGRAPH_CONFIG stops the start with its own message.
  const assistantDefaults = systemAssistantDefaultsFromEnv(process.env.LANGGRAPH_CONFIG);
  // A bad signing secret stops the start the same way (exit 2, one line naming the setting).
  const webhookKey = webhookSigningKey(config.webhooks, process.env);
  const opened = await openStorage(options, cwd, config, (line) => logger.warn(line));
  const { storage } = opened;
  let engine: Engine | undefined;
  let server: RunningServer | undefined;
  let grpc: RunningA2AGrpcServer | undefined;
  let mcp: ReturnType<typeof mcpMount> | undefined;
  // The API app, in-process: relative webhooks and the SDK's `new Client()` (in custom routes and graphs)
  // are sent through it. Bound before graphs and routes load, which may make a Client at import time.
  let api: ReturnType<typeof createApp> | undefined;
  const loopback = (request: Request, env?: unknown) => {
    if (!api) throw new Error("the server is not started yet: in-process requests are served once it is");
    return api.fetch(request, env);
  };
  const unbindSdkLoopback = bindSdkLoopback(loopback);
  // remoteAgent in this server's graphs: an agent named by a path is called through this app; metrics count calls.
  const selfFetch = appFetch(loopback) as typeof fetch;
  const remoteAgentHooks = [installRemoteAgentHooks({ selfFetch: () => selfFetch })];
  const unhookRemoteAgents = () => remoteAgentHooks.forEach((uninstall) => uninstall());
  try {
    logger.info({ storage: storage.kind, location: opened.description, migrations: opened.applied }, `Storage: ${opened.description}`);
    if (!storage.runs.recordResult || !storage.runs.getResult) {
      logger.warn(
        { storage: storage.kind },
        `Storage driver "${storage.kind}" has no RunRepo.recordResult/getResult: A2A refuses new messages (the LangGraph API works as usual)`,
      );
    }
    if (options.snapshot !== undefined) await hydrate(storage, opened.encryption.cipher, options, logger);

    registerSdkLogger(logger);
    if (webhookKey) {
      const from = process.env[WEBHOOK_SECRET_ENV] ? WEBHOOK_SECRET_ENV : "langgraph.json webhooks.signing_secret";
      logger.info({ webhook_signing: from }, `Webhooks and A2A push notifications are signed (Standard Webhooks), secret from ${from}`);
    }
    const runTimeoutSeconds = options.runTimeoutSeconds ?? config.run_timeout ?? DEFAULT_RUN_TIMEOUT_SECONDS;
    const metrics = serverMetrics(config, { version: VERSION, storage: storage.kind, workers: options.workers }, logger);
    if (metrics) remoteAgentHooks.push(installRemoteAgentHooks(metrics.remoteAgentHooks));
    // langgraph.json store.index: the embedder, the recorded identity's check, and which search is used (logged).
    const storeIndex = await openStoreIndex(config.store?.index, cwd, storage, logger);
    engine = new Engine({
      storage,
      workers: options.workers,
      ...(options.pollMs !== undefined ? { pollMs: options.pollMs } : {}),
      logger: runLogger(logger),
      runTimeoutMs: runTimeoutSeconds * 1000,
      ...(metrics ? { observer: metrics.engineObserver } : {}),
      loopback,
      // Webhooks and A2A push notifications: `dev` may post to localhost and private networks, `serve` may not.
      urlPolicy: outboundUrlPolicy(config.webhooks, dev ? "dev" : "serve"),
      ...(webhookKey ? { webhookSigningKey: webhookKey } : {}),
      ttl: ttlOptions(config), // langgraph.json checkpointer.ttl and store.ttl
      ...(storeIndex ? { storeIndex } : {}),
      schemas: {
        // Source schemas survive restarts beside the server's other local data (.agent-server/ by default).
        cacheDir: join(dataDir(options, cwd), "schema-cache"),
        onCacheHit: (graphIds) => logger.info({ graphs: graphIds }, `Schemas of ${graphIds.join(", ")} read from the schema cache`),
        onCacheUnwritable: (error) =>
          logger.warn(
            { error: error.message },
            `Schema cache not written (schemas are read from source again at each start): ${error.message}`,
          ),
        onExtracted: (graphIds, durationMs) =>
          logger.info(
            { graphs: graphIds, duration_ms: durationMs },
            `Schemas of ${graphIds.join(", ")} read from source in ${durationMs} ms`,
          ),
        onFailure: (graphIds, error) =>
          logger.warn(
            { graphs: graphIds, error: error.message },
            `Schemas of ${graphIds.join(", ")} could not be read from source: ${error.message}`,
          ),
      },
    });
    metrics?.bind({ engine, storage });
    await engine.registry.load(config.graphs, cwd);
    engine.registry.setSystemAssistantDefaults(assistantDefaults);
    const graphs = engine.registry.ids();
    logger.info({ graphs }, `Graphs: ${graphs.join(", ") || "(none)"}`);
    const unsupported = unsupportedConfigKeys(config);
    if (unsupported.length > 0) {
      logger.warn({ ignored: unsupported }, `langgraph.json: ${unsupported.join(", ")} not supported by agent-server: ignored`);
    }

    const auth = await loadCustomAuth(config.auth?.path, cwd, logger);
    let httpApp: UserHttpApp | undefined;
    if (config.http?.app) {
      logger.info({ http_app: config.http.app }, `Loading HTTP app from ${config.http.app}`);
      httpApp = await loadHttpApp(config.http.app, cwd);
    }
    let ui: UiBundles | undefined;
    if (config.ui && Object.keys(config.ui).length > 0) {
      ui = await bundleUi(config.ui, { cwd, shared: config.ui_config?.shared });
      logger.info({ ui: Object.keys(config.ui) }, `Generative UI bundled for: ${Object.keys(config.ui).join(", ")}`);
    }
    // A2A (cards, JSON-RPC v1.0 + v0.3, HTTP+JSON) behind the same auth middleware as the API; gRPC
    // (when asked for) on its own port with the same auth, bound before HTTP so every card lists it.
    const a2aOptions = { ...(await a2aRouteOptions(config, cwd, auth, logger)), observeCall: metrics?.a2aCall };
    // MCP (/mcp: every assistant a tool) behind the same auth, unless http.disable_mcp.
    mcp = mcpMount(config, logger, metrics?.mcpToolCall);
    api = createApp({
      engine,
      storage,
      version: VERSION,
      dev,
      auth,
      httpApp,
      cors: config.http?.cors,
      maxBodyBytes: options.maxBodyBytes ?? config.http?.max_body_size,
      ui,
      ...(metrics ? { metrics: metrics.http({ authenticated: config.http?.metrics_auth === true }) } : {}),
      extraRoutes: [(deps) => a2aRoutes(deps, { ...a2aOptions, grpc: () => grpc }), ...(mcp.route ? [mcp.route] : [])],
    });

    await engine.start();
    // gRPC before HTTP: the first answer HTTP gives (/ok, /ready, a card) comes from a server whose
    // every listener is bound, so a card read as soon as /ready answers 200 lists the GRPC interface
    // (the cards read the bound port through `grpc`). Both are bound before either is announced: a
    // start that fails on either port never said it was listening.
    const grpcPort = options.grpcPort ?? config.a2a?.grpc_port;
    if (grpcPort !== undefined) {
      grpc = await startGrpcOrExplain(
        { engine, storage },
        { ...a2aOptions, host: options.host, port: grpcPort, authenticate: requestAuthenticator(auth) },
        options.grpcPort !== undefined ? "--grpc-port" : "a2a.grpc_port in langgraph.json",
      );
    }
    // /inspector (on in dev, opt-in in serve): public files, outside the API's auth like /docs.
    const inspector = inspectorEnabled(options.inspector, config.http?.inspector, dev) ? createInspector() : undefined;
    server = await listenOrExplain(withInspector(inspector, loopback), options.host, options.port);
    logger.info(
      { url: server.url, storage: storage.kind, graphs, mode: options.command, workers: options.workers, run_timeout_s: runTimeoutSeconds },
      `agent-server ${VERSION} (${options.command}) listening on ${server.url}`,
    );
    logger.info({ docs: `${server.url}/docs` }, `API reference: ${server.url}/docs`);
    if (inspector) logger.info({ inspector: `${server.url}${INSPECTOR_PATH}` }, `Inspector: ${server.url}${INSPECTOR_PATH}`);
    await announceMcp(config, server.url, engine, storage, logger);
    if (grpc) logger.info({ grpc: grpc.url }, `A2A gRPC listening on ${grpc.url}`);
  } catch (error) {
    await grpc?.close().catch(() => undefined);
    await server?.close().catch(() => undefined);
    await engine?.stop(0).catch(() => undefined);
    await storage.close().catch(() => undefined);
    unbindSdkLoopback();
    unhookRemoteAgents();
    throw error;
  }

  const running = server;
  const runningGrpc = grpc;
  const mcpRoutes = mcp?.built();
  const startedEngine = engine;
  return {
    url: running.url,
    ...(runningGrpc ? { grpcUrl: runningGrpc.url } : {}),
    engine: startedEngine,
    storage,
    async stop(graceMs, drainMs = 0) {
      // Listeners stay open while the engine drains: clients keep reading runs and following streams,
      // and a load balancer sees /ready answer 503 and moves new work elsewhere.
      await startedEngine.stop(graceMs, drainMs);
      await runningGrpc?.close();
      await running.close();
      // Their connections are closed: calls still in flight are cancelled, as when a client leaves.
      await mcpRoutes?.closeSessions();
      try {
        // After the engine stopped: no run is left running here (handed-back runs are pending in the file).
        if (options.snapshotSave && options.snapshot !== undefined)
          await saveSnapshot(storage, opened.encryption.cipher, options.snapshot, logger);
      } finally {
        unbindSdkLoopback();
        unhookRemoteAgents();
        await storage.close();
      }
    },
  };
}

/**
 * Binds the HTTP server. An address it cannot have is a mistake in the command line, said in one line
 * with the way out (exit 2), not a stack trace.
 */
async function listenOrExplain(
  fetch: (request: Request, env?: unknown) => Response | Promise<Response>,
  host: string,
  port: number,
): Promise<RunningServer> {
  try {
    return await listen(fetch, { host, port });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const choose = "choose another port with --port <n> (--port 0 picks a free one)";
    if (code === "EADDRINUSE")
      throw new InvalidInputError(`port ${port} on ${host} is already in use: stop what is using it, or ${choose}`);
    if (code === "EACCES") throw new InvalidInputError(`no permission to listen on port ${port} of ${host}: ${choose}`);
    if (code === "EADDRNOTAVAIL" || code === "ENOTFOUND") {
      throw new InvalidInputError(`cannot listen on ${host}: it is not an address of this machine (choose one with --host)`);
    }
    throw error;
  }
}

/**
 * Binds the A2A gRPC server; a port it cannot have is explained in one line, as for the HTTP port,
 * naming where the port came from (`source`: the flag or langgraph.json).
 */
async function startGrpcOrExplain(
  deps: Parameters<typeof startA2AGrpcServer>[0],
  options: A2AGrpcServerOptions,
  source: string,
): Promise<RunningA2AGrpcServer> {
  const { host, port } = options;
  try {
    return await startA2AGrpcServer(deps, options);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const choose = `choose another port with --grpc-port <n> (--grpc-port 0 picks a free one); this one is from ${source}`;
    if (code === "EADDRINUSE")
      throw new InvalidInputError(`gRPC port ${port} on ${host} is already in use: stop what is using it, or ${choose}`);
    if (code === "EACCES") throw new InvalidInputError(`no permission to listen on gRPC port ${port} of ${host}: ${choose}`);
    if (code === "EADDRNOTAVAIL" || code === "ENOTFOUND") {
      throw new InvalidInputError(`cannot listen for gRPC on ${host}: it is not an address of this machine (choose one with --host)`);
    }
    throw error;
  }
}

/**
 * `--snapshot <file>`: imports the file into the fresh memory store before the engine starts and the
 * server listens. With `--snapshot-save` a missing file is a first start (the file is written on
 * shutdown); without it, a missing file is an error.
 */
async function hydrate(storage: Storage, cipher: FieldCipher, options: CliOptions, logger: Logger): Promise<void> {
  const file = resolve(options.snapshot!);
  const { formatReport, importSnapshotFile } = await import("../snapshot/index.js");
  if (!existsSync(file) && options.snapshotSave) {
    logger.info({ snapshot: file }, `Snapshot ${file} does not exist yet: starting empty, it is written on shutdown`);
    return;
  }
  const report = await importSnapshotFile(storage, file, cipher);
  const imported = Object.fromEntries(Object.entries(report.counts).map(([type, count]) => [type, count.imported]));
  logger.info(
    { snapshot: file, imported, skipped_unknown: report.unknown },
    `Snapshot ${file} imported:\n${formatReport(report).join("\n")}`,
  );
}

async function saveSnapshot(storage: Storage, cipher: FieldCipher, file: string, logger: Logger): Promise<void> {
  const { exportSnapshotFile } = await import("../snapshot/index.js");
  const path = resolve(file);
  const counts = await exportSnapshotFile(storage, path, { serverVersion: VERSION, cipher });
  logger.info({ snapshot: path, exported: counts }, `Snapshot saved to ${path}`);
}

/**
 * Custom auth from langgraph.json `auth.path` (an `Auth` instance of @langchain/langgraph-sdk/auth).
 * A file that is missing or exports no usable Auth is a project error (exit 2): the server never
 * starts without the auth the project asked for.
 */
async function loadCustomAuth(spec: string | undefined, cwd: string, logger: Logger): Promise<unknown> {
  if (!spec) return undefined;
  logger.info({ auth: spec }, `Loading auth from ${spec}`);
  try {
    return await loadAuth(spec, cwd);
  } catch (error) {
    throw new InvalidInputError((error as Error).message);
  }
}

export function projectDirOf(configPath: string): string {
  return dirname(resolve(configPath));
}
