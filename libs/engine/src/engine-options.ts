import type { OutboundUrlPolicy, Storage, StoreIndexer } from "@agent-server/core";
import type { TtlOptions } from "./config/ttl.js";
import type { StaticSchemaOptions } from "./graphs/schemas/static-schema-cache.js";
import type { EngineObserver } from "./observe/index.js";
import type { RunLogger } from "./runs/run-logger.js";
import type { LoopbackFetch, OutboxOptions } from "./webhooks/outbox.js";

/** What an `Engine` is built with: its storage driver, and the knobs of its loops and limits. */
export interface EngineOptions {
  storage: Storage;
  /** Concurrent runs in this process (runs of one thread always execute one at a time). */
  workers?: number;
  leaseMs?: number;
  /**
   * How many times a run is executed when its worker keeps being lost (a process killed mid-run): each
   * time it goes back to the queue and resumes from its last checkpoint; past this it ends `error`
   * (`WorkerLost`). Default 3, as the official server.
   */
  maxAttempts?: number;
  /**
   * The fallback poll: how often idle workers look for runs, and waiters and streams of runs executing
   * elsewhere check their status, in case a signal was lost. Default 1 s, or 5 s when the storage's
   * signals reach other processes (PostgreSQL), which wake them at once.
   */
  pollMs?: number;
  /**
   * How long after a run's first hand-back for a storage fault its waiters still follow it (5 s): a run
   * still handed back after that (a full disk refuses its writes) is kept, and its waiters are answered the fault.
   */
  stallAnswerMs?: number;
  /**
   * How long an assistant read while the engine is alone on its database is answered from memory (1 s;
   * runs/assistant-cache.ts): what a write this process cannot see may stay unseen.
   */
  assistantCacheMs?: number;
  /** How long a rollback of a run executing in another process waits for that process to answer (2 s). */
  remoteRollbackMs?: number;
  /** How long events of resumable streams stay replayable. */
  eventTtlMs?: number;
  cronPollMs?: number;
  outbox?: Partial<OutboxOptions>;
  /** The server's own HTTP app, in-process: relative webhooks ("/path") are delivered through it. */
  loopback?: LoopbackFetch;
  /**
   * Where webhooks and A2A push notifications may be sent (`outboundUrlPolicy(config.webhooks, mode)`);
   * default: `serve` without a `webhooks.url` section (no loopback or private-network hosts).
   */
  urlPolicy?: OutboundUrlPolicy;
  /**
   * Signs every webhook and A2A push notification POST with Standard Webhooks headers (`webhook-id`,
   * `webhook-timestamp`, `webhook-signature`): the HMAC-SHA256 key (`webhookSigningKey(config.webhooks)`).
   * Absent: deliveries carry no signature.
   */
  webhookSigningKey?: Uint8Array;
  logger?: RunLogger;
  /**
   * The run time limit in ms (0 or absent: none): a run still executing after it ends `timeout` (its
   * error says so, its A2A task is FAILED) and its worker is freed. Assistants and requests adjust it
   * with `config.run_timeout` in seconds (runs/run-timeout.ts).
   */
  runTimeoutMs?: number;
  /** Counts for metrics (runs admitted, started, ended, requeued; deliveries); nothing is counted without it. */
  observer?: EngineObserver;
  /** Extraction of graph schemas from TypeScript source (timeout, worker heap, failure report). */
  schemas?: Partial<StaticSchemaOptions>;
  /**
   * TTLs and their sweeps (langgraph.json `checkpointer.ttl` and `store.ttl`, through `ttlOptions`);
   * default: threads and items expire only when given a TTL, swept every 5 / 60 minutes.
   */
  ttl?: TtlOptions;
  /** langgraph.json `store.index` (store-index/open.ts `openStoreIndex`): semantic search for graphs and the store API. */
  storeIndex?: StoreIndexer;
}

export type CancelAction = "interrupt" | "rollback";
