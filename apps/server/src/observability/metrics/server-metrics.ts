import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";
import type { HttpMetrics } from "@agent-server/agent-protocol";
import type { Storage } from "@agent-server/core";
import type { Engine, EngineObserver } from "@agent-server/engine";
import type { A2ACallObserver, McpToolCallObserver } from "@agent-server/interop";
import type { RemoteAgentHooks } from "@agent-server/remote-agent/hooks";

/** Every metric of ours starts with this (docs/operations.md, "Metrics"). */
export const METRIC_PREFIX = "agent_server_";

const HTTP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const RUN_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800, 3600];
const QUEUE_WAIT_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900];

/** What the scrape-time gauges read: the engine and storage of this server. */
export interface ScrapeSources {
  engine: Engine;
  storage: Storage;
}

/**
 * This process's Prometheus metrics: one registry per server (a process running several servers, as
 * tests do, keeps them apart), plus the process metrics of `collectDefaultMetrics`, which describe the
 * whole process and so are collected once per process. Counters and histograms are fed by the hooks
 * (`engineObserver`, `http`, `a2aCall`, `mcpToolCall`); gauges are read when scraped.
 */
export class ServerMetrics {
  readonly registry = new Registry();
  private sources: ScrapeSources | undefined;

  private readonly httpDuration = new Histogram({
    name: `${METRIC_PREFIX}http_request_duration_seconds`,
    help: "HTTP requests by route template, method and status: time to the response's headers (its _count counts requests)",
    labelNames: ["route", "method", "status"] as const,
    buckets: HTTP_BUCKETS,
    registers: [this.registry],
  });
  private readonly runsAdmitted = this.counter("runs_admitted_total", "Runs admitted through this process", ["graph"]);
  private readonly runsEnded = this.counter(
    "runs_ended_total",
    "Runs this process settled, by terminal status (success, error, timeout, interrupted)",
    ["graph", "status"],
  );
  private readonly runAttempts = this.counter("run_attempts_total", "Attempts at runs started in this process", ["graph"]);
  private readonly runsRequeued = this.counter(
    "runs_requeued_total",
    "Runs put back in the queue: drained/shutdown (hand-backs of a stopping process), lease-expired/owner-gone (crash requeues)",
    ["reason"],
  );
  private readonly queueWait = new Histogram({
    name: `${METRIC_PREFIX}run_queue_wait_seconds`,
    help: "From a run's due time (created_at, or after_seconds later) to its first claim",
    labelNames: ["graph"] as const,
    buckets: QUEUE_WAIT_BUCKETS,
    registers: [this.registry],
  });
  private readonly runDuration = new Histogram({
    name: `${METRIC_PREFIX}run_duration_seconds`,
    help: "Execution of runs that ended here: from the claim of their last attempt to their terminal status",
    labelNames: ["graph", "status"] as const,
    buckets: RUN_BUCKETS,
    registers: [this.registry],
  });
  private readonly a2aCalls = this.counter("a2a_calls_total", "A2A calls by v1.0 method, binding and outcome", [
    "method",
    "binding",
    "outcome",
  ]);
  private readonly remoteCalls = this.counter(
    "a2a_remote_calls_total",
    "Calls graphs of this process made to other A2A agents (remoteAgent), by agent and outcome (completed, failed, canceled, rejected, input-required, auth-required, error, aborted); a call re-attached after a restart counts again",
    ["agent", "outcome"],
  );
  private readonly remoteCallDuration = new Histogram({
    name: `${METRIC_PREFIX}a2a_remote_call_duration_seconds`,
    help: "Remote A2A calls of graphs in this process, from the node's send (or re-attachment) to the task's end or question",
    labelNames: ["agent", "outcome"] as const,
    buckets: RUN_BUCKETS,
    registers: [this.registry],
  });
  private readonly mcpToolCalls = this.counter("mcp_tool_calls_total", "MCP tools/call requests by tool and outcome", ["tool", "outcome"]);
  private readonly deliveries = this.counter(
    "deliveries_total",
    "Webhook and A2A push delivery attempts by kind and outcome (delivered, retried, failed, refused)",
    ["kind", "outcome"],
  );
  private readonly ttlSwept = this.counter(
    "ttl_swept_total",
    "Rows removed by this process's TTL sweeps, by kind (thread_deleted, thread_trimmed, store_item)",
    ["kind"],
  );

  constructor(info: { version: string; storage: string; workers: number }) {
    processMetrics();
    const sources = () => this.sources;
    new Gauge({
      name: `${METRIC_PREFIX}info`,
      help: "Always 1: the server's version and storage driver",
      labelNames: ["version", "storage"] as const,
      registers: [this.registry],
    }).set({ version: info.version, storage: info.storage }, 1);
    new Gauge({ name: `${METRIC_PREFIX}workers_max`, help: "Runs this process executes at once at most", registers: [this.registry] }).set(
      info.workers,
    );
    new Gauge({
      name: `${METRIC_PREFIX}runs_running`,
      help: "Runs executing in this process now (sum across processes)",
      registers: [this.registry],
      collect() {
        const source = sources();
        if (source) this.set(source.engine.executingRuns);
      },
    });
    new Gauge({
      name: `${METRIC_PREFIX}runs_pending`,
      help: "Runs pending in storage, deferred ones included: one fact of the whole deployment, every process reports it (aggregate with max(), not sum())",
      registers: [this.registry],
      async collect() {
        const countPending = sources()?.storage.runs.countPending?.bind(sources()!.storage.runs);
        if (!countPending) return;
        // A storage that cannot answer leaves the other metrics readable; NaN says "unknown".
        this.set(await countPending().catch(() => Number.NaN));
      },
    });
    new Gauge({
      name: `${METRIC_PREFIX}stream_subscriptions`,
      help: "Live run-stream subscriptions in this process (SSE and A2A streams following a run)",
      registers: [this.registry],
      collect() {
        const source = sources();
        if (source) this.set(source.engine.hub.subscriptionCount);
      },
    });
    new Gauge({
      name: `${METRIC_PREFIX}thread_streams`,
      help: "Thread streams (the thread streaming protocol, over SSE or WebSocket) open in this process",
      registers: [this.registry],
      collect() {
        const source = sources();
        if (source) this.set(source.engine.threadEvents.openStreamCount);
      },
    });
    const pool = (name: string, help: string, read: (pool: PoolCounts) => number) =>
      new Gauge({
        name: `${METRIC_PREFIX}pg_pool_${name}`,
        help,
        registers: [this.registry],
        collect() {
          const counts = poolOf(sources()?.storage);
          if (counts) this.set(read(counts));
        },
      });
    pool("connections", "PostgreSQL connections of this process's pool (pg.Pool totalCount)", (p) => p.totalCount);
    pool("idle_connections", "Idle PostgreSQL connections of this process's pool (pg.Pool idleCount)", (p) => p.idleCount);
    pool("waiting_clients", "Queries waiting for a PostgreSQL connection in this process (pg.Pool waitingCount)", (p) => p.waitingCount);
  }

  /** The engine and storage the scrape-time gauges read, once they exist. */
  bind(sources: ScrapeSources): void {
    this.sources = sources;
  }

  readonly engineObserver: EngineObserver = {
    runAdmitted: (_run, graph) => this.runsAdmitted.inc({ graph }),
    runStarted: (_run, graph, _attempt, queueWaitMs) => {
      this.runAttempts.inc({ graph });
      if (queueWaitMs !== undefined) this.queueWait.observe({ graph }, queueWaitMs / 1000);
    },
    runEnded: (_run, status, graph, durationMs) => {
      this.runsEnded.inc({ graph, status });
      if (durationMs !== undefined) this.runDuration.observe({ graph, status }, durationMs / 1000);
    },
    runRequeued: (reason) => this.runsRequeued.inc({ reason }),
    deliveryFinished: (kind, outcome) => this.deliveries.inc({ kind, outcome }),
    ttlSwept: (kind, count) => this.ttlSwept.inc({ kind }, count),
  };

  readonly a2aCall: A2ACallObserver = (method, binding, outcome) => this.a2aCalls.inc({ method, binding, outcome });

  /** Fed by remoteAgent calls in this process's graphs (installed with `installRemoteAgentHooks`). */
  readonly remoteAgentHooks: RemoteAgentHooks = {
    callEnded: (info, outcome, seconds) => {
      this.remoteCalls.inc({ agent: info.agent, outcome });
      this.remoteCallDuration.observe({ agent: info.agent, outcome }, seconds);
    },
  };

  readonly mcpToolCall: McpToolCallObserver = (tool, outcome) => this.mcpToolCalls.inc({ tool, outcome });

  /** For the HTTP app (`AppDeps.metrics`). */
  http(options: { authenticated: boolean }): HttpMetrics {
    return {
      authenticated: options.authenticated,
      observeRequest: (route, method, status, durationMs) =>
        this.httpDuration.observe({ route, method, status: String(status) }, durationMs / 1000),
      scrape: async () => ({ contentType: this.registry.contentType, body: await this.exposition() }),
    };
  }

  /** The text exposition: this server's metrics, then the process's. */
  async exposition(): Promise<string> {
    const ours = await this.registry.metrics();
    return `${ours}\n${await processRegistry!.metrics()}`;
  }

  private counter<L extends string>(name: string, help: string, labelNames: readonly L[]): Counter<L> {
    return new Counter({ name: `${METRIC_PREFIX}${name}`, help, labelNames, registers: [this.registry] });
  }
}

interface PoolCounts {
  totalCount: number;
  idleCount: number;
  waitingCount: number;
}

/** The storage's `pg.Pool` (the PostgreSQL driver exposes it as `pool`), read structurally: no pg import here. */
function poolOf(storage: Storage | undefined): PoolCounts | undefined {
  const pool = (storage as { pool?: Partial<PoolCounts> } | undefined)?.pool;
  if (!pool || typeof pool.totalCount !== "number" || typeof pool.idleCount !== "number" || typeof pool.waitingCount !== "number") {
    return undefined;
  }
  return pool as PoolCounts;
}

let processRegistry: Registry | undefined;

/** Event-loop lag, heap, GC, CPU, file descriptors: prom-client's defaults, collected once per process. */
function processMetrics(): void {
  if (processRegistry) return;
  processRegistry = new Registry();
  collectDefaultMetrics({ register: processRegistry });
}
