/**
 * The thread streaming protocol's cost per token, beside the classic run stream, on one `serve` process per
 * storage: a graph whose chat model streams `--tokens` one-character tokens with no pause, so streaming is
 * the only work.
 * - protocol: an SSE stream of the thread (`messages` + `lifecycle`) opened before `run.start`; time to the
 *   first `content-block-delta` and to the root `completed`, and deltas received;
 * - classic: `client.runs.stream(..., { streamMode: "messages-tuple" })`, time to the first and last chunk;
 * - replay: a stream opened after the run ended, time until it has replayed the run's root `completed`.
 *
 *   npx tsx tools/bench/investigations/thread-stream.ts [--tokens 500] [--rounds 10] [--storage memory,sqlite,postgres]
 *
 * PostgreSQL: POSTGRES_URL, else an embedded server. Prints p50 / p95 per measurement (ms).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { Client } from "@langchain/langgraph-sdk";
import { postgresForScript } from "@agent-server/testing/postgres";
import { killAll, startCli } from "@agent-server/server/testing";

const { values: args } = parseArgs({
  options: {
    tokens: { type: "string", default: "500" },
    rounds: { type: "string", default: "10" },
    storage: { type: "string", default: "memory,sqlite,postgres" },
  },
});
const tokens = Number(args.tokens);
const rounds = Number(args.rounds);
const PROJECT = fileURLToPath(new URL("./thread-stream/langgraph.json", import.meta.url));

interface Sample {
  first: number;
  done: number;
  count: number;
}

function stats(name: string, samples: number[]): string {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!.toFixed(1);
  return `${name} p50 ${at(0.5)} p95 ${at(0.95)}`;
}

/** Reads a thread's SSE stream until the root lifecycle says `completed`; times from `t0`. */
async function readThread(url: string, threadId: string, t0: number, opened?: (ok: boolean) => void): Promise<Sample> {
  const response = await fetch(`${url}/threads/${threadId}/stream/events`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "text/event-stream" },
    body: JSON.stringify({ channels: ["messages", "lifecycle"] }),
  });
  opened?.(response.ok);
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  let first = 0;
  let count = 0;
  try {
    while (true) {
      const { value, done } = await reader.read();
      if (done) throw new Error("stream ended before the run completed");
      buffer += value;
      let cut: number;
      while ((cut = buffer.indexOf("\n\n")) >= 0) {
        const frame = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        const data = frame.split("\n").find((line) => line.startsWith("data: "));
        if (!data) continue;
        const event = JSON.parse(data.slice(6)) as { method: string; params: { namespace: string[]; data: { event?: string } } };
        if (event.method === "messages" && event.params.data.event === "content-block-delta") {
          count += 1;
          if (count === 1) first = performance.now() - t0;
        }
        if (event.method === "lifecycle" && event.params.namespace.length === 0 && event.params.data.event === "completed") {
          return { first, done: performance.now() - t0, count };
        }
      }
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

async function command(url: string, threadId: string, method: string, params: unknown): Promise<void> {
  const response = await fetch(`${url}/threads/${threadId}/commands`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ id: 1, method, params }),
  });
  const answer = (await response.json()) as { type: string; message?: string };
  if (answer.type !== "success") throw new Error(`${method}: ${answer.message}`);
}

async function benchStorage(storage: string, extra: string[]): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), "bench-thread-stream-"));
  const server = await startCli(
    [
      "serve",
      "--config",
      PROJECT,
      "--host",
      "127.0.0.1",
      "--port",
      "0",
      "--storage",
      storage,
      ...(storage === "sqlite" ? ["--data-dir", dataDir] : []),
      ...extra,
    ],
    { env: { BENCH_TOKENS: String(tokens) } },
  );
  const client = new Client({ apiUrl: server.url });
  const protocol: Sample[] = [];
  const classic: Sample[] = [];
  const replay: number[] = [];
  const input = { messages: [{ role: "user", content: "go" }] };
  try {
    for (let round = -1; round < rounds; round++) {
      // Protocol: the stream is open (its response headers arrived) before run.start is sent.
      const threadId = crypto.randomUUID();
      let ready!: () => void;
      const isOpen = new Promise<void>((resolve) => (ready = resolve));
      const t0 = performance.now();
      const reading = readThread(server.url, threadId, t0, () => ready());
      await isOpen;
      const t1 = performance.now();
      await command(server.url, threadId, "run.start", { assistant_id: "tokens", input });
      const sample = await reading;
      const opened = t1 - t0;
      // Classic: the same graph, a run stream of messages-tuple chunks.
      const thread = await client.threads.create();
      const c0 = performance.now();
      let first = 0;
      let count = 0;
      for await (const chunk of client.runs.stream(thread.thread_id, "tokens", { input, streamMode: "messages-tuple" })) {
        if (chunk.event !== "messages") continue;
        count += 1;
        if (count === 1) first = performance.now() - c0;
      }
      const classicSample = { first, done: performance.now() - c0, count };
      // Replay: a late stream of the finished thread.
      const r0 = performance.now();
      await readThread(server.url, threadId, r0);
      const replayed = performance.now() - r0;
      if (round < 0) continue; // warm-up: graph import, first connections
      protocol.push({ first: sample.first - opened, done: sample.done - opened, count: sample.count });
      classic.push(classicSample);
      replay.push(replayed);
    }
    const deltas = protocol[0]!.count;
    console.log(
      [
        `${storage}: ${tokens} tokens, ${rounds} rounds`,
        `  protocol (${deltas} deltas): ${stats(
          "first token",
          protocol.map((s) => s.first),
        )}; ${stats(
          "completed",
          protocol.map((s) => s.done),
        )}`,
        `  classic  (${classic[0]!.count} chunks): ${stats(
          "first chunk",
          classic.map((s) => s.first),
        )}; ${stats(
          "last chunk",
          classic.map((s) => s.done),
        )}`,
        `  replay of the finished thread: ${stats("to completed", replay)}`,
      ].join("\n"),
    );
  } finally {
    await killAll();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

for (const storage of String(args.storage).split(",")) {
  if (storage === "postgres") {
    const pg = process.env.POSTGRES_URL ? { url: process.env.POSTGRES_URL, stop: async () => undefined } : await postgresForScript();
    try {
      await benchStorage(storage, ["--database-url", pg.url, "--database-schema", `bench_${Date.now()}`]);
    } finally {
      await pg.stop();
    }
  } else {
    await benchStorage(storage, []);
  }
}
