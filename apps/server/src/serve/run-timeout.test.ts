import { fileURLToPath } from "node:url";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SendMessageRequest, TaskState, type Task } from "@a2a-js/sdk";
import { ClientFactory } from "@a2a-js/sdk/client";
import { Client } from "@langchain/langgraph-sdk";
import { afterEach, describe, expect, it } from "vitest";
import { jsonLines, killAll, loggedRecord, startCli } from "../../test/support/cli-process.js";

const PROJECT = fileURLToPath(new URL("../../test/support/fixture-project/langgraph-run-timeout.json", import.meta.url));
let dataDir: string | undefined;

afterEach(async () => {
  await killAll();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
  dataDir = undefined;
});

function say(text: string, contextId?: string): SendMessageRequest {
  return SendMessageRequest.fromJSON({ message: { messageId: crypto.randomUUID(), role: "ROLE_USER", contextId, parts: [{ text }] } });
}

describe("the run time limit on a real serve process (SQLite, one worker)", () => {
  it("ends a stuck run `timeout` at langgraph.json's run_timeout, its A2A task FAILED with the reason, and frees the worker", async () => {
    dataDir = await mkdtemp(join(tmpdir(), "run-timeout-"));
    const server = await startCli(["serve", "--config", PROJECT, "--port", "0", "--data-dir", dataDir, "--workers", "1"]);
    expect(jsonLines(server.stdout()).find((line) => String(line.msg).includes("listening on"))).toMatchObject({ run_timeout_s: 1 });

    const stuck = await new ClientFactory().createFromUrl(`${server.url}/a2a/stuck/`);
    const task = (await stuck.sendMessage(say("call the dead upstream"))) as Task;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_FAILED);
    const reason = task.status?.message?.parts.map((part) => (part.content?.$case === "text" ? part.content.value : "")).join("");
    expect(reason).toBe("The run timed out: the run exceeded its time limit of 1 s and was stopped");
    // GetTask says the same after the fact; the LangGraph API shows the run `timeout` and the thread in error.
    const again = await stuck.getTask({ id: task.id, historyLength: undefined, tenant: "" });
    expect(again.status?.state).toBe(TaskState.TASK_STATE_FAILED);
    const sdk = new Client({ apiUrl: server.url });
    expect((await sdk.runs.get(task.contextId, task.id)).status).toBe("timeout");
    expect((await sdk.threads.get(task.contextId)).status).toBe("error");

    // The only worker is free: the next task completes.
    const echo = await new ClientFactory().createFromUrl(`${server.url}/a2a/echo/`);
    const answered = (await echo.sendMessage(say("still there?"))) as Task;
    expect(answered.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const ended = await loggedRecord(server, (line) => line.msg === "run ended (timeout) in " + String(line.duration_ms) + " ms");
    expect(ended).toMatchObject({ level: 40, status: "timeout", run_id: task.id });
  });
});
