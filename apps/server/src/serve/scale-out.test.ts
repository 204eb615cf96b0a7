import { createTestSchema, type TestSchema } from "@agent-server/testing/postgres";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { jsonLines, killAll } from "../../test/support/cli-process.js";
import { CRASH_LOOP_CONFIG } from "../../test/support/crash-loop.js";
import { startServeProcesses, type ServeProcess } from "../../test/support/serve-processes.js";

// Three `agent-server serve` processes on one PostgreSQL schema, as N replicas behind a load balancer.
type Server = ServeProcess;

let schema: TestSchema;
let servers: Server[];

beforeEach(async () => {
  schema = await createTestSchema("scale_out");
  servers = await startServeProcesses({
    config: CRASH_LOOP_CONFIG,
    databaseUrl: schema.url,
    databaseSchema: schema.schema,
    count: 3,
    workers: 2,
  });
}, 120_000);

afterEach(async () => {
  await killAll();
  await schema.drop();
});

/** The server whose logs say it started `runId` as `attempt`, once one does. */
async function executing(runId: string, attempt: number): Promise<Server> {
  for (;;) {
    const found = servers.find((s) =>
      jsonLines(s.stdout()).some((l) => l.msg === "run started" && l.run_id === runId && l.attempt === attempt),
    );
    if (found) return found;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const input = (text: string, stepMs: number) => ({ messages: [{ role: "user", content: text }], stepMs });

describe("three serve processes over one PostgreSQL", () => {
  it("SIGKILL of the process executing a run: another resumes it as attempt 2 from its checkpoint, and it completes", async () => {
    const [a] = servers;
    const thread = await a.client.threads.create();
    const run = await a.client.runs.create(thread.thread_id, "steps", { input: input("survive", 1500) });
    const owner = await executing(run.run_id, 1);
    // Past its first checkpoint (plan), so the next attempt resumes rather than restarts.
    await new Promise((resolve) => setTimeout(resolve, 2000));
    owner.child.kill("SIGKILL");
    const killedAt = Date.now();
    await owner.exited;
    const survivor = servers.find((s) => s !== owner)!;
    const resumer = await executing(run.run_id, 2);
    console.log(`failover: kill → attempt 2 started in ${Date.now() - killedAt} ms`);
    expect(resumer).not.toBe(owner);

    await survivor.client.runs.join(thread.thread_id, run.run_id);
    expect((await survivor.client.runs.get(thread.thread_id, run.run_id)).status).toBe("success");
    const state = await survivor.client.threads.getState<{ steps: string[]; messages: { content: string }[] }>(thread.thread_id);
    // Each node ran once: the second attempt went on from the checkpoint, it did not start over.
    expect(state.values.steps).toEqual(["plan", "work", "check", "reply"]);
    expect(state.values.messages.at(-1)?.content).toBe("done: survive");
    expect(state.metadata?.run_attempt).toBe(2);
  }, 120_000);

  it("concurrent admissions on one thread through different processes behave as on one process", async () => {
    const [a] = servers;
    const thread = await a.client.threads.create();
    const admit = (server: Server, strategy: "reject" | "enqueue" | "interrupt", text: string) =>
      server.client.runs.create(thread.thread_id, "steps", { input: input(text, 150), multitaskStrategy: strategy });

    // reject: of six racing through three processes, exactly one is admitted.
    const rejected = await Promise.allSettled(servers.flatMap((s, i) => [admit(s, "reject", `r${i}`), admit(s, "reject", `r${i}b`)]));
    expect(rejected.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    for (const r of rejected) if (r.status === "rejected") expect(String(r.reason)).toMatch(/422.*already running/);
    await a.client.runs.join(
      thread.thread_id,
      (rejected.find((r) => r.status === "fulfilled") as PromiseFulfilledResult<{ run_id: string }>).value.run_id,
    );

    // enqueue: every one runs, one after another.
    const queued = await Promise.all(servers.map((s, i) => admit(s, "enqueue", `q${i}`)));
    for (const run of queued) await a.client.runs.join(thread.thread_id, run.run_id);
    for (const run of queued) expect((await a.client.runs.get(thread.thread_id, run.run_id)).status).toBe("success");

    // interrupt: each admission cancels whatever was admitted before it, so exactly the last one admitted
    // goes on (without one lock across processes, two racing admissions could cancel each other).
    const interrupting = await Promise.all(servers.map((s, i) => admit(s, "interrupt", `i${i}`)));
    for (const run of interrupting) await a.client.runs.join(thread.thread_id, run.run_id);
    const statuses = await Promise.all(interrupting.map(async (run) => (await a.client.runs.get(thread.thread_id, run.run_id)).status));
    expect(statuses.filter((s) => s === "success")).toHaveLength(1);
    expect(statuses.filter((s) => s === "interrupted")).toHaveLength(2);
    const newest = [...interrupting].sort((x, y) => (x.created_at < y.created_at ? -1 : x.created_at > y.created_at ? 1 : 0)).at(-1)!;
    expect(statuses[interrupting.indexOf(newest)]).toBe("success");
  }, 120_000);
});
