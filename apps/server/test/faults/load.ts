import { SendMessageRequest, TaskState, type Task } from "@a2a-js/sdk";
import { ClientFactory, type Client as A2AClient } from "@a2a-js/sdk/client";
import { Client } from "@langchain/langgraph-sdk";

/**
 * Client load for fault tests: loops of A2A SendMessage (the official @a2a-js/sdk client) and SDK
 * `runs.wait` (the official @langchain/langgraph-sdk Client) against server processes, every call bounded
 * in time, every answer classified, and every acknowledged one kept so that it can be read back later.
 */

/** How long any one call may take before it counts as a hang. */
export const CALL_TIMEOUT_MS = 20_000;

/**
 * ok: the call was acknowledged (a task, a run's values). refused: a storage fault said so (503/507 with a
 * JSON `detail`, a JSON-RPC error that says more than "Internal error"). bad: anything else (a bare 500, a
 * hang, a dropped connection, a FAILED task, an answer without the reply).
 */
export type Outcome = "ok" | "refused" | "bad";

export interface Answer {
  kind: "a2a" | "sdk";
  /** Index of the server process asked. */
  server: number;
  startedAt: number;
  endedAt: number;
  outcome: Outcome;
  /** What was answered, for the report (an error's status and text). */
  detail: string;
}

/** An acknowledged A2A task: what the SendMessage answer showed. */
export interface AckedTask {
  server: number;
  taskId: string;
  text: string;
  state: string;
  artifact: string[];
}

/** An acknowledged `runs.wait`: the run and thread it created. */
export interface AckedRun {
  server: number;
  threadId: string;
  runId?: string;
  text: string;
}

/** The clients of one server process, with retries off so that every answer the server gives is seen. */
export interface ServerClients {
  sdk: Client;
  a2a: A2AClient;
}

export async function clientsFor(url: string, assistant: string): Promise<ServerClients> {
  return {
    sdk: new Client({ apiUrl: url, apiKey: null, timeoutMs: CALL_TIMEOUT_MS, callerOptions: { maxRetries: 0 } }),
    // The SDK resolves the card relative to the base URL: the trailing slash matters.
    a2a: await new ClientFactory().createFromUrl(`${url}/a2a/${assistant}/`),
  };
}

export interface LoadRecord {
  answers: Answer[];
  tasks: AckedTask[];
  runs: AckedRun[];
}

export function taskState(task: Task): string {
  return TaskState[task.status?.state ?? TaskState.TASK_STATE_UNSPECIFIED] as string;
}

export function artifactTexts(task: Task): string[] {
  return task.artifacts.flatMap((a) => a.parts.flatMap((p) => (p.content?.$case === "text" ? [p.content.value] : [])));
}

/** The reply the fixture's `steps` graph gives to `text`. */
export const replyTo = (text: string): string => `done: ${text}`;

/**
 * Runs `loops` loops until `stop` aborts, loop i on server i % n, each alternating A2A SendMessage and SDK
 * `runs.wait` (loop i starting with A2A when i is even). After a refusal a loop waits `backoffMs` (as a
 * client honouring Retry-After would, only shorter).
 */
export async function runLoad(options: {
  clients: ServerClients[];
  loops: number;
  stepMs: number;
  stop: AbortSignal;
  record: LoadRecord;
  backoffMs?: number;
}): Promise<void> {
  const { clients, record, stop } = options;
  let sequence = 0;
  await Promise.all(
    Array.from({ length: options.loops }, async (_, loop) => {
      const server = loop % clients.length;
      for (let turn = loop; !stop.aborted; turn += 1) {
        const text = `load ${loop}.${(sequence += 1)}`;
        const answer =
          turn % 2 === 0
            ? await sendA2A(clients[server].a2a, server, text, options.stepMs, record)
            : await waitSdk(clients[server].sdk, server, text, options.stepMs, record);
        record.answers.push(answer);
        await pause(answer.outcome === "ok" ? 20 : (options.backoffMs ?? 250));
      }
    }),
  );
}

async function sendA2A(client: A2AClient, server: number, text: string, stepMs: number, record: LoadRecord): Promise<Answer> {
  const startedAt = Date.now();
  const answer = (outcome: Outcome, detail: string): Answer => ({ kind: "a2a", server, startedAt, endedAt: Date.now(), outcome, detail });
  try {
    const result = await client.sendMessage(
      SendMessageRequest.fromJSON({
        message: { messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text }, { data: { stepMs } }] },
      }),
      { signal: AbortSignal.timeout(CALL_TIMEOUT_MS) },
    );
    if (!("status" in result)) return answer("bad", `a message instead of a task: ${JSON.stringify(result).slice(0, 300)}`);
    const acked: AckedTask = { server, taskId: result.id, text, state: taskState(result), artifact: artifactTexts(result) };
    record.tasks.push(acked);
    if (acked.state === "TASK_STATE_FAILED" || acked.state === "TASK_STATE_CANCELED")
      return answer("bad", `task ${acked.taskId} answered ${acked.state}`);
    if (acked.state === "TASK_STATE_COMPLETED" && acked.artifact.join() !== replyTo(text))
      return answer("bad", `task ${acked.taskId} completed with ${JSON.stringify(acked.artifact)}`);
    return answer("ok", acked.state);
  } catch (error) {
    const { outcome, detail } = classifyA2AError(error);
    return answer(outcome, detail);
  }
}

async function waitSdk(client: Client, server: number, text: string, stepMs: number, record: LoadRecord): Promise<Answer> {
  const startedAt = Date.now();
  const answer = (outcome: Outcome, detail: string): Answer => ({ kind: "sdk", server, startedAt, endedAt: Date.now(), outcome, detail });
  const threadId = crypto.randomUUID();
  let runId: string | undefined;
  try {
    const values = (await client.runs.wait(threadId, "steps", {
      input: { messages: [{ role: "user", content: text }], stepMs },
      ifNotExists: "create",
      onRunCreated: (created) => (runId = created.run_id),
      signal: AbortSignal.timeout(CALL_TIMEOUT_MS),
    })) as { messages?: Array<{ content?: unknown }> };
    record.runs.push({ server, threadId, runId, text });
    const reply = values.messages?.at(-1)?.content;
    return reply === replyTo(text)
      ? answer("ok", `run ${runId}`)
      : answer("bad", `run ${runId} answered ${JSON.stringify(values).slice(0, 300)}`);
  } catch (error) {
    const { outcome, detail } = classifySdkError(error);
    return answer(outcome, runId ? `${detail} (run ${runId} was created)` : detail);
  }
}

/** A 503/507 whose body is JSON with a non-empty `detail`, as every storage fault must be answered. */
function refusedWithDetail(status: number, body: string): boolean {
  if (status !== 503 && status !== 507) return false;
  try {
    const detail = (JSON.parse(body) as { detail?: unknown }).detail;
    return typeof detail === "string" && detail.length > 0;
  } catch {
    return false;
  }
}

function isTimeout(error: unknown): boolean {
  const e = error as { name?: string; message?: string };
  return e?.name === "TimeoutError" || e?.name === "AbortError" || /^(AbortError|TimeoutError)|aborted/.test(e?.message ?? "");
}

export function classifySdkError(error: unknown): { outcome: Outcome; detail: string } {
  if (isTimeout(error)) return { outcome: "bad", detail: `no answer within ${CALL_TIMEOUT_MS} ms` };
  const e = error as { status?: number; text?: string; message?: string; name?: string };
  if (typeof e.status === "number") {
    const detail = `HTTP ${e.status}: ${(e.text ?? "").slice(0, 300)}`;
    return { outcome: refusedWithDetail(e.status, e.text ?? "") ? "refused" : "bad", detail };
  }
  // The SDK rethrows an HTTP error whose text mentions ECONNREFUSED (or "fetch failed") as a ConnectionError
  // "Unable to connect to LangGraph server": the client is told the server is down while it answered.
  const hidden = /^Unable to connect to LangGraph server[\s\S]*Original error: HTTP (\d+): ([\s\S]*)$/.exec(String(e.message ?? ""));
  if (hidden)
    return {
      outcome: "bad",
      detail: `HTTP ${hidden[1]} reached the SDK as ConnectionError "Unable to connect to LangGraph server" (the body names ECONNREFUSED): ${hidden[2].slice(0, 200)}`,
    };
  // runs.wait's 200 with `__error__` (the answer was already under way when the run failed): the SDK
  // throws "<error>: <message>". A storage fault named there is a refusal; a generic one is not.
  const message = String(e.message ?? error);
  if (/^StorageUnavailable: /.test(message)) return { outcome: "refused", detail: `200 with __error__: ${message.slice(0, 300)}` };
  return { outcome: "bad", detail: `${e.name ?? "Error"}: ${message.slice(0, 300)}` };
}

export function classifyA2AError(error: unknown): { outcome: Outcome; detail: string } {
  if (isTimeout(error)) return { outcome: "bad", detail: `no answer within ${CALL_TIMEOUT_MS} ms` };
  const e = error as { envelopeCode?: number; message?: string; name?: string };
  const message = String(e.message ?? error);
  if (typeof e.envelopeCode === "number") {
    const generic = message.trim() === "" || message.trim() === "Internal error";
    return { outcome: generic ? "bad" : "refused", detail: `JSON-RPC ${e.envelopeCode}: ${message.slice(0, 300)}` };
  }
  // The transport's own error for a non-JSON-RPC HTTP answer: "HTTP error for <method>! Status: 503 ... Response: <body>".
  const http = /Status: (\d+)[^.]*\. Response: ([\s\S]*)$/.exec(message);
  if (http) {
    const status = Number(http[1]);
    return { outcome: refusedWithDetail(status, http[2]) ? "refused" : "bad", detail: `HTTP ${status}: ${http[2].slice(0, 300)}` };
  }
  return { outcome: "bad", detail: `${e.name ?? "Error"}: ${message.slice(0, 300)}` };
}

export function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
