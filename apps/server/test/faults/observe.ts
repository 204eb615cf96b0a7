import { artifactTexts, pause, replyTo, taskState, type LoadRecord, type ServerClients } from "./load.js";

/** One health check answer: `/ok` or `/ok?check_db=1` of one server; status -1 when no answer came. */
export interface HealthSample {
  server: number;
  checkDb: boolean;
  at: number;
  status: number;
  error?: string;
}

const HEALTH_INTERVAL_MS = 250;
/** A liveness check that takes longer than this is as good as none. */
const HEALTH_TIMEOUT_MS = 5000;

/** Polls `/ok` and `/ok?check_db=1` of every server every 250 ms until `stop()`. */
export function watchHealth(urls: string[]): { samples: HealthSample[]; stop(): void } {
  const samples: HealthSample[] = [];
  let stopped = false;
  const poll = async (server: number, checkDb: boolean) => {
    while (!stopped) {
      const at = Date.now();
      try {
        const response = await fetch(`${urls[server]}/ok${checkDb ? "?check_db=1" : ""}`, {
          signal: AbortSignal.timeout(HEALTH_TIMEOUT_MS),
        });
        await response.arrayBuffer();
        samples.push({ server, checkDb, at, status: response.status });
      } catch (error) {
        samples.push({ server, checkDb, at, status: -1, error: String((error as Error)?.cause ?? error).slice(0, 200) });
      }
      await pause(Math.max(0, HEALTH_INTERVAL_MS - (Date.now() - at)));
    }
  };
  for (let server = 0; server < urls.length; server++) {
    void poll(server, false);
    void poll(server, true);
  }
  return {
    samples,
    stop: () => {
      stopped = true;
    },
  };
}

const TERMINAL_TASK = new Set(["TASK_STATE_COMPLETED", "TASK_STATE_FAILED", "TASK_STATE_CANCELED", "TASK_STATE_REJECTED"]);

/**
 * Reads back everything the load had acknowledged, through `clients` (one server): each task with GetTask
 * until it has ended, which must be COMPLETED with the reply as its one artifact (the same artifact the
 * SendMessage answer showed, when it showed one); each SDK run with runs.get, which must be `success`.
 * Returns one line per breach. Tasks acknowledged just before the outage may still be running: they get
 * up to `settleMs` in all.
 */
export async function readBack(clients: ServerClients, record: LoadRecord, settleMs: number): Promise<string[]> {
  const problems: string[] = [];
  const deadline = Date.now() + settleMs;
  for (const task of record.tasks) {
    let state = "unread";
    let artifact: string[] = [];
    while (Date.now() < deadline) {
      try {
        const read = await clients.a2a.getTask({ tenant: "", id: task.taskId, historyLength: 0 }, { signal: AbortSignal.timeout(20_000) });
        state = taskState(read);
        artifact = artifactTexts(read);
        if (TERMINAL_TASK.has(state)) break;
      } catch (error) {
        state = `unreadable (${String((error as Error)?.message ?? error).slice(0, 200)})`;
      }
      await pause(250);
    }
    const expected = task.state === "TASK_STATE_COMPLETED" ? task.artifact : [replyTo(task.text)];
    if (state !== "TASK_STATE_COMPLETED" || artifact.join("|") !== expected.join("|"))
      problems.push(`task ${task.taskId} (acknowledged ${task.state}) reads back ${state} with ${JSON.stringify(artifact)}`);
  }
  for (const run of record.runs) {
    try {
      const runs = run.runId ? [await clients.sdk.runs.get(run.threadId, run.runId)] : await clients.sdk.runs.list(run.threadId);
      const statuses = runs.map((r) => r.status);
      if (statuses.length !== 1 || statuses[0] !== "success")
        problems.push(`run ${run.runId ?? "(id not given)"} on thread ${run.threadId} reads back ${JSON.stringify(statuses)}`);
    } catch (error) {
      problems.push(`run ${run.runId} on thread ${run.threadId} unreadable: ${String((error as Error)?.message ?? error).slice(0, 200)}`);
    }
  }
  return problems;
}
