import pg from "pg";

/**
 * How the driver's connections survive their database going away (a restart, a failover,
 * `pg_terminate_backend`). pg emits `'error'` on a Client whose server ends its connection, and on the pool
 * for an idle one; with no listener Node ends the process. The pool listens only while a client is idle in
 * it: a client checked out (a transaction between statements, the thread lock's connection held while its
 * section runs) had none. Every client the pool opens gets a listener for its whole life; a client whose
 * connection broke fails its next statement ("not queryable"), and pg-pool drops it instead of reusing it
 * when it is released. New connections are made on demand, so the pool "reconnects" by itself.
 */
export function guardPool(pool: pg.Pool): pg.Pool {
  if (guarded.has(pool)) return pool;
  guarded.add(pool);
  pool.on("error", ignoreConnectionError);
  pool.on("connect", (client) => client.on("error", ignoreConnectionError));
  return pool;
}

/**
 * The options of a pool the driver opens itself. A request must not wait forever for a connection: with
 * the database gone, `connect` fails at once (refused); with the database hung, or every connection busy,
 * it gives up after `CONNECT_TIMEOUT_MS` and the request answers 503. TCP keep-alive finds a peer that
 * vanished without closing its connections.
 */
export function poolOptions(connectionString: string, max?: number): pg.PoolConfig {
  return {
    connectionString,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    keepAlive: true,
    ...(max !== undefined ? { max } : {}),
  };
}

/** How long a statement waits for a pool connection (or a new connection for its handshake) before failing. */
export const CONNECT_TIMEOUT_MS = 10_000;

const guarded = new WeakSet<pg.Pool>();

/** A connection's own errors surface on its next statement, which the caller handles; nothing to do here. */
function ignoreConnectionError(): void {}
