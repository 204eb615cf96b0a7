import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { RunAwarePostgresSaver } from "@agent-server/storage-postgres";
import pg from "pg";
import { graph } from "../../../../examples/src/echo.js";
import type { Operation } from "../measure.js";
import { expectEcho } from "./sdk.js";

export interface Floor {
  operation: Operation;
  dispose(): Promise<void>;
}

/**
 * The in-process floor: the same echo graph, invoked in this process with LangGraph's own SqliteSaver on a
 * file, a fresh thread per operation. No HTTP, no run bookkeeping: what any server adds is above it.
 */
export function openFloor(): Floor {
  const dir = mkdtempSync(join(tmpdir(), "bench-floor-"));
  const saver = SqliteSaver.fromConnString(join(dir, "floor.sqlite"));
  const echo = graph.builder.compile({ checkpointer: saver });
  return {
    operation: async () => {
      expectEcho(await echo.invoke({ messages: [{ role: "user", content: "hi" }] }, { configurable: { thread_id: crypto.randomUUID() } }));
    },
    async dispose() {
      saver.db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The PostgreSQL floor: the same, with the PostgresSaver our driver uses (LangGraph's, versions made
 * unique) over a pool on the bench's PostgreSQL, in a schema of its own. What PostgreSQL's round trips
 * cost a bare graph; our PostgreSQL rows are compared with it.
 */
export async function openPostgresFloor(url: string, schema: string): Promise<Floor> {
  const pool = new pg.Pool({ connectionString: url });
  pool.on("error", () => undefined);
  await pool.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
  const saver = new RunAwarePostgresSaver(pool, schema);
  await saver.setup();
  const echo = graph.builder.compile({ checkpointer: saver });
  return {
    operation: async () => {
      expectEcho(await echo.invoke({ messages: [{ role: "user", content: "hi" }] }, { configurable: { thread_id: crypto.randomUUID() } }));
    },
    async dispose() {
      await pool.end();
    },
  };
}
