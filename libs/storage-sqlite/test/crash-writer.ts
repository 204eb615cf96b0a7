/**
 * Child process for the crash test: writes runs and their results in a loop until it is killed.
 * Usage: node --import tsx crash-writer.ts <db-path>. Prints "ready <n>" lines as it goes.
 */
import { randomUUID } from "node:crypto";
import { openSqliteStorage } from "../src/storage.js";

const path = process.argv[2];
if (!path) throw new Error("usage: crash-writer <db-path>");

const storage = await openSqliteStorage({ path });
const threadId = randomUUID();
await storage.threads.create({ thread_id: threadId });
const blob = "r".repeat(64 * 1024);
for (let i = 0; ; i++) {
  const runId = randomUUID();
  await storage.runs.create({ run_id: runId, thread_id: threadId, assistant_id: "a", metadata: { i } });
  await storage.runs.recordResult(runId, {
    values: { i, blob, nested: { list: Array.from({ length: 100 }, (_, k) => k) } },
    reply: `reply ${i}`,
    checkpoint: { thread_id: threadId, checkpoint_ns: "", checkpoint_id: `c${i}` },
  });
  if (i % 10 === 0) process.stdout.write(`ready ${i}\n`);
}
