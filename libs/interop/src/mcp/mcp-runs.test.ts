import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Progress } from "@modelcontextprotocol/sdk/types.js";
import { eventually } from "@agent-server/engine/testing";
import { mcpClient, resultText, startMcpServer, type McpTestServer } from "../../test/support/mcp-clients.js";

/**
 * Long runs through the official SDK client: progress notifications while the run streams, and a call
 * the client abandons cancels its run (session mode: `notifications/cancelled`; either mode: the
 * client closing its connection).
 */
let stateless: McpTestServer;
let session: McpTestServer;

beforeAll(async () => {
  [stateless, session] = await Promise.all([startMcpServer(), startMcpServer({ mode: "session" })]);
});

afterAll(async () => {
  await stateless?.dispose();
  await session?.dispose();
});

/** The run and thread a call's first progress notification announces. */
function admitted(progress: Progress[]): { runId: string; threadId: string } | undefined {
  const match = progress[0]?.message?.match(/^Run (\S+) admitted on thread (\S+)\.$/);
  return match ? { runId: match[1]!, threadId: match[2]! } : undefined;
}

describe.each([
  ["stateless", () => stateless],
  ["session", () => session],
] as const)("MCP runs (%s mode)", (_mode, server) => {
  it("sends progress notifications while a multi-step graph runs, one per step, before the result", async () => {
    const { client } = await mcpClient(server().base);
    try {
      const progress: Progress[] = [];
      const result = await client.callTool({ name: "slow", arguments: { delayMs: 50 } }, undefined, {
        onprogress: (p) => progress.push(p),
      });
      expect(result.isError).toBeFalsy();
      expect((result.structuredContent as { values: unknown }).values).toEqual({ steps: [1, 2], delayMs: 50 });
      const ids = admitted(progress)!;
      expect(ids).toEqual({ runId: (result._meta as Record<string, string>)["langgraph/run_id"], threadId: expect.any(String) });
      expect(progress.map((p) => [p.progress, p.message])).toEqual([
        [0, `Run ${ids.runId} admitted on thread ${ids.threadId}.`],
        [1, "Step done: first."],
        [2, "Step done: second."],
      ]);
      // Without a progress token nothing is streamed for the call, and the answer is the same.
      const quiet = await client.callTool({ name: "slow", arguments: { delayMs: 1 } });
      expect((quiet.structuredContent as { values: unknown }).values).toEqual({ steps: [1, 2], delayMs: 1 });
    } finally {
      await client.close();
    }
  });

  it("reports the interrupt step, and a call that stops at interrupt() still answers a result", async () => {
    const { client } = await mcpClient(server().base);
    try {
      const progress: Progress[] = [];
      const result = await client.callTool({ name: "approval", arguments: { request: "x" } }, undefined, {
        onprogress: (p) => progress.push(p),
      });
      expect(result.isError).toBeFalsy();
      expect(progress.at(-1)?.message).toBe("Stopped at an interrupt: waiting for input.");
    } finally {
      await client.close();
    }
  });

  it("cancels the run when the client closes its connection during the call", async () => {
    const { client } = await mcpClient(server().base);
    const progress: Progress[] = [];
    const call = client.callTool({ name: "slow", arguments: { delayMs: 10_000 } }, undefined, {
      onprogress: (p) => progress.push(p),
      timeout: 60_000,
    });
    call.catch(() => undefined);
    const { runId, threadId } = await eventually(async () => admitted(progress));
    await eventually(async () => (await server().server.storage.runs.get(runId))?.status === "running");
    await client.close();
    await expect(call).rejects.toThrow();
    const run = await eventually(async () => {
      const found = await server().server.storage.runs.get(runId, threadId);
      return found?.status === "interrupted" ? found : undefined;
    });
    expect(run.status).toBe("interrupted");
  });
});

describe("MCP cancellation by notification (session mode)", () => {
  it("notifications/cancelled (the SDK's abort signal) cancels the run; the session keeps serving calls", async () => {
    const { client } = await mcpClient(session.base);
    try {
      const abort = new AbortController();
      const progress: Progress[] = [];
      const call = client.callTool({ name: "slow", arguments: { delayMs: 10_000 } }, undefined, {
        signal: abort.signal,
        onprogress: (p) => progress.push(p),
      });
      call.catch(() => undefined);
      const { runId, threadId } = await eventually(async () => admitted(progress));
      await eventually(async () => (await session.server.storage.runs.get(runId))?.status === "running");
      abort.abort("user pressed stop");
      await expect(call).rejects.toThrow();
      await eventually(async () => (await session.server.storage.runs.get(runId, threadId))?.status === "interrupted");
      const after = await client.callTool({ name: "echo", arguments: { messages: [{ role: "user", content: "still here" }] } });
      expect(resultText(after)).toBe("echo: still here");
    } finally {
      await client.close();
    }
  });
});

describe("MCP call limit (mcp.call_timeout)", () => {
  it("cancels a call's run past the limit and answers a tool error naming the limit, the run and the thread", async () => {
    const limited = await startMcpServer({ callTimeoutMs: 300 });
    const { client } = await mcpClient(limited.base);
    try {
      const result = await client.callTool({ name: "slow", arguments: { delayMs: 10_000 } });
      expect(result.isError).toBe(true);
      const text = resultText(result);
      expect(text).toMatch(/^The call took longer than this server allows \(0\.3 s\): its run (\S+) was cancelled on thread (\S+)\./);
      const [, runId, threadId] = text.match(/its run (\S+) was cancelled on thread (\S+)\./)!;
      expect((await limited.server.storage.runs.get(runId!, threadId!))?.status).toBe("interrupted");
      // Calls that end in time are not affected.
      const quick = await client.callTool({ name: "slow", arguments: { delayMs: 1 } });
      expect(quick.isError).toBeFalsy();
    } finally {
      await client.close();
      await limited.dispose();
    }
  });
});
