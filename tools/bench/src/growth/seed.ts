import type { Storage } from "@agent-server/core";
import { graph } from "../../../../examples/src/echo.js";

/** Runs per seeded thread, as a busy store would have them (tools/bench/investigations/a2a-tasks.ts seeds the same way). */
export const RUNS_PER_THREAD = 50;

/** A task, its context and a thread with state, from the middle of what was seeded: what growth measures. */
export interface Probe {
  taskId: string;
  contextId: string;
  threadId: string;
}

/**
 * Fills a store through its driver, in place, to a growing number of runs: each thread holds
 * RUNS_PER_THREAD finished runs, the first of them an A2A task (a run with a recorded result), and the state
 * of one real echo run, written by the graph through the driver's own checkpointer. `concurrency` writes go
 * at once (PostgreSQL's pool; SQLite serializes them anyway).
 */
export class Seeder {
  private runs = 0;
  private readonly threads: Probe[] = [];
  private readonly echo;

  constructor(
    private readonly storage: Storage,
    private readonly assistantId: string,
    private readonly concurrency: number,
  ) {
    this.echo = graph.builder.compile({ checkpointer: storage.checkpointer });
  }

  get seededRuns(): number {
    return this.runs;
  }

  /** Adds threads until the store holds at least `total` runs. */
  async growTo(total: number): Promise<void> {
    const threadCount = Math.ceil((total - this.runs) / RUNS_PER_THREAD);
    let next = 0;
    const lane = async () => {
      while (next < threadCount) {
        next += 1;
        this.threads.push(await this.seedThread());
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, Math.min(this.concurrency, threadCount)) }, lane));
    this.runs += threadCount * RUNS_PER_THREAD;
  }

  /** The thread in the middle of those seeded so far. */
  probe(): Probe {
    const probe = this.threads[this.threads.length >> 1];
    if (!probe) throw new Error("nothing seeded yet");
    return probe;
  }

  private async seedThread(): Promise<Probe> {
    const { storage, assistantId } = this;
    const threadId = crypto.randomUUID();
    await storage.threads.create({ thread_id: threadId, metadata: { graph_id: "echo", assistant_id: assistantId } });
    const task = await storage.runs.create(
      { run_id: crypto.randomUUID(), thread_id: threadId, assistant_id: assistantId, status: "success" },
      { internal: { captureResult: true } },
    );
    await storage.runs.recordResult!(task.run_id, {
      values: { messages: [{ type: "ai", content: "echo: hi" }] },
      reply: "echo: hi",
    });
    for (let i = 1; i < RUNS_PER_THREAD; i++) {
      await storage.runs.create({ run_id: crypto.randomUUID(), thread_id: threadId, assistant_id: assistantId, status: "success" });
    }
    await this.echo.invoke({ messages: [{ role: "user", content: "hi" }] }, { configurable: { thread_id: threadId } });
    return { taskId: task.run_id, contextId: threadId, threadId };
  }
}
