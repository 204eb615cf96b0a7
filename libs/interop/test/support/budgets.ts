/**
 * The query budget: statements each call sends to the database, counted at the client (see
 * `StatementCounter` in @agent-server/testing), echo graph, after warm-up. The budget tests assert these
 * exactly: a change that adds a round trip fails with the statements on screen; one that removes some
 * lowers the figure here. SQLite's `prepares` are statements prepared during the call (0 once warm).
 * PostgreSQL's NOTIFY flushes are not in `postgres`: they coalesce by timing, so only their maximum is held;
 * the budget's server is alone on its database, where an engine sends none (signals/peers.ts).
 * docs/benchmarks.md ("Query budget") keeps the history of these figures.
 */
export const budgets = {
  "A2A SendMessage, new context": { postgres: 2, sqlite: 16, sqlitePrepares: 0, postgresNotifyMax: 0 },
  "A2A SendMessage, existing context": { postgres: 9, sqlite: 20, sqlitePrepares: 0, postgresNotifyMax: 0 },
  "A2A SendStreamingMessage": { postgres: 4, sqlite: 16, sqlitePrepares: 0, postgresNotifyMax: 0 },
  "A2A GetTask": { postgres: 2, sqlite: 3, sqlitePrepares: 0, postgresNotifyMax: 0 },
  "A2A ListTasks page": { postgres: 7, sqlite: 8, sqlitePrepares: 0, postgresNotifyMax: 0 },
  "SDK threads.create": { postgres: 1, sqlite: 1, sqlitePrepares: 0, postgresNotifyMax: 0 },
  "SDK threads.create + runs.wait": { postgres: 10, sqlite: 20, sqlitePrepares: 0, postgresNotifyMax: 0 },
  "SDK runs.wait, stateless": { postgres: 14, sqlite: 24, sqlitePrepares: 0, postgresNotifyMax: 0 },
  "SDK runs.wait, if_not_exists create": { postgres: 6, sqlite: 19, sqlitePrepares: 0, postgresNotifyMax: 0 },
  "SDK runs.stream": { postgres: 11, sqlite: 19, sqlitePrepares: 0, postgresNotifyMax: 0 },
  "SDK threads.getState": { postgres: 5, sqlite: 5, sqlitePrepares: 0, postgresNotifyMax: 0 },
  "SDK threads.getHistory": { postgres: 5, sqlite: 5, sqlitePrepares: 1, postgresNotifyMax: 0 },
} satisfies Record<string, { postgres: number; sqlite: number; sqlitePrepares: number; postgresNotifyMax: number }>;

export type BudgetedCall = keyof typeof budgets;
