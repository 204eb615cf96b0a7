import { relative } from "node:path";
import { fileURLToPath } from "node:url";
import { SendMessageRequest } from "@a2a-js/sdk";
import { ClientFactory, ClientFactoryOptions } from "@a2a-js/sdk/client";
import { Client } from "@langchain/langgraph-sdk";
import { afterEach, describe, expect, it } from "vitest";
import { jsonLines, killAll, REPO_ROOT, runCli, startCli } from "../../test/support/cli-process.js";

afterEach(killAll);

const PROJECT = fileURLToPath(new URL("../../test/support/fixture-project/langgraph-custom-storage.json", import.meta.url));
const DRIVER = fileURLToPath(new URL("../../test/support/fixture-project/driver-without-results.ts", import.meta.url));

/** An A2A user message saying "hello", in `contextId` when given. */
function hello(contextId?: string): SendMessageRequest {
  return SendMessageRequest.fromJSON({
    message: { messageId: crypto.randomUUID(), role: "ROLE_USER", contextId, parts: [{ text: "hello" }] },
  });
}

/** Every thread id and each thread's run ids, read through the LangGraph API. */
async function threadsAndRuns(client: Client): Promise<Record<string, string[]>> {
  const threads = await client.threads.search({ limit: 1000 });
  const entries = await Promise.all(
    threads.map(async (t) => [t.thread_id, (await client.runs.list(t.thread_id, { limit: 1000 })).map((r) => r.run_id).sort()] as const),
  );
  return Object.fromEntries(entries);
}

describe("a custom storage driver without the result methods, plugged in through the CLI", () => {
  it("langgraph.json storage.path: the LangGraph API works, A2A refuses with -32004 and creates nothing", async () => {
    const server = await startCli(["dev", "--config", PROJECT, "--port", "0", "--no-reload", "--log-format", "json"]);
    const lines = jsonLines(server.stdout());
    expect(lines.find((l) => String(l.msg).startsWith("Storage:"))).toMatchObject({
      storage: "memory-without-results",
      msg: 'Storage: custom driver "memory-without-results" (./driver-without-results.ts:createStorage)',
    });
    expect(lines.find((l) => l.level === 40 && String(l.msg).includes("recordResult/getResult"))).toBeDefined();
    // `storage` is honoured: no "not supported" warning names it.
    expect(lines.some((l) => String(l.msg).includes("not supported by agent-server") && String(l.msg).includes("storage"))).toBe(false);

    const client = new Client({ apiUrl: server.url });
    const assistants = await client.assistants.search({ graphId: "echo" });
    expect(assistants.map((a) => a.graph_id)).toEqual(["echo"]);
    const thread = await client.threads.create({ metadata: { owner: "custom-driver-test" } });
    const events: string[] = [];
    for await (const chunk of client.runs.stream(thread.thread_id, "echo", {
      input: { messages: [{ role: "user", content: "streamed" }] },
      streamMode: "values",
    })) {
      events.push(chunk.event);
    }
    expect(events[0]).toBe("metadata");
    expect(events).toContain("values");
    const waited = (await client.runs.wait(thread.thread_id, "echo", { input: { messages: [{ role: "user", content: "waited" }] } })) as {
      messages: { content: string }[];
    };
    expect(waited.messages.map((m) => m.content)).toEqual(["streamed", "echo: streamed", "waited", "echo: waited"]);
    // A driver without ThreadRepo.storesValuesAt gets the thread's values written, not a pointer.
    const read = (await client.threads.get(thread.thread_id)) as { values: { messages: { content: string }[] } };
    expect(read.values.messages.map((m) => m.content)).toEqual(["streamed", "echo: streamed", "waited", "echo: waited"]);
    const runs = await client.runs.list(thread.thread_id);
    expect(runs.map((r) => r.status)).toEqual(["success", "success"]);
    // The driver throws the server's own error classes: a duplicate thread is a 409, not a 500.
    await expect(client.threads.create({ threadId: thread.thread_id })).rejects.toMatchObject({ status: 409 });

    const before = await threadsAndRuns(client);
    const agent = await new ClientFactory().createFromUrl(`${server.url}/a2a/echo/`);
    const refused = agent.sendMessage(hello());
    await expect(refused).rejects.toThrow(/storage driver cannot record run results/);
    expect(await refused.catch((error: { envelopeCode?: number; code?: number }) => error.envelopeCode ?? error.code)).toBe(-32004);
    // Into an existing context too: refused before the thread gets a run.
    await expect(agent.sendMessage(hello(thread.thread_id))).rejects.toThrow(/storage driver cannot record run results/);
    // Streaming too: the stream fails before its first event.
    const streamed: unknown[] = [];
    const stream = async () => {
      for await (const event of agent.sendMessageStream(hello())) streamed.push(event);
    };
    await expect(stream()).rejects.toThrow(/storage driver cannot record run results/);
    expect(streamed).toEqual([]);
    // And over the HTTP+JSON binding.
    const rest = await new ClientFactory(
      ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { preferredTransports: ["HTTP+JSON"] }),
    ).createFromUrl(`${server.url}/a2a/echo/`);
    await expect(rest.sendMessage(hello())).rejects.toThrow(/storage driver cannot record run results/);
    expect(await threadsAndRuns(client)).toEqual(before);
    expect(Object.keys(before)).toEqual([thread.thread_id]);
  });

  it("--storage <path>:<export> wins over langgraph.json; a missing export exits 2 with one line naming it", async () => {
    const spec = `${relative(REPO_ROOT, DRIVER)}:noSuchExport`;
    const run = runCli(["dev", "--config", PROJECT, "--port", "0", "--no-reload", "--storage", `./${spec}`]);
    expect(await run.exited).toBe(2);
    const message = run.stderr().trim() || run.stdout().trim();
    expect(message).toContain(`--storage ./${spec}: ${DRIVER} has no export "noSuchExport" (its exports: createStorage)`);
    expect(message.split("\n").filter((l) => l.includes("noSuchExport"))).toHaveLength(1);
    expect(message).not.toMatch(/\n\s+at /);
  });
});
