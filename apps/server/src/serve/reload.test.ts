import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@langchain/langgraph-sdk";
import { connect } from "node:net";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { jsonLines, killAll, startCli } from "../../test/support/cli-process.js";

const ECHO = fileURLToPath(new URL("../../../../examples/src/echo.ts", import.meta.url));
const APPROVAL = fileURLToPath(new URL("../../../../examples/src/approval.ts", import.meta.url));
const SLOW = fileURLToPath(new URL("../../test/support/fixture-project/slow.ts", import.meta.url));

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "agent-server-reload-"));
});
afterEach(async () => {
  await killAll();
  rmSync(dir, { recursive: true, force: true });
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

const listening = (text: string) => jsonLines(text).filter((l) => typeof l.url === "string");

describe("agent-server dev reload", () => {
  it("restarts on a langgraph.json change on the same port, survives a broken edit, and dies with its supervisor", async () => {
    const config = join(dir, "langgraph.json");
    writeFileSync(config, JSON.stringify({ graphs: { echo: `${ECHO}:graph` } }));
    const server = await startCli(["dev", "--config", config, "--port", "0", "--storage", "memory", "--log-format", "json"]);
    const client = new Client({ apiUrl: server.url });
    expect((await client.assistants.search()).map((a) => a.graph_id)).toEqual(["echo"]);
    // The server runs in a child of the process we started.
    const firstPid = listening(server.stdout())[0].pid as number;
    expect(firstPid).not.toBe(server.child.pid);

    writeFileSync(config, JSON.stringify({ graphs: { echo: `${ECHO}:graph`, approval: `${APPROVAL}:graph` } }));
    await server.waitFor(/listening on[^\n]*\n[\s\S]*listening on/);
    const second = listening(server.stdout())[1];
    expect(second.url).toBe(server.url);
    expect(second.graphs).toEqual(["echo", "approval"]);
    expect(alive(firstPid)).toBe(false);
    expect(jsonLines(server.stdout()).some((l) => String(l.msg).startsWith(`[reload] ${config} changed`))).toBe(true);

    // A broken edit: the restart fails, dev waits for the fix instead of exiting.
    writeFileSync(config, "{ not json");
    await server.waitFor(/server exited with code 2: waiting for a file change/);
    expect(server.child.exitCode).toBeNull();
    writeFileSync(config, JSON.stringify({ graphs: { approval: `${APPROVAL}:graph` } }));
    await server.waitFor(/(listening on[^\n]*\n[\s\S]*){3}/);
    // Memory storage starts empty each time: only the graph of the fixed config has an assistant.
    expect((await client.assistants.search()).map((a) => a.graph_id)).toEqual(["approval"]);

    // Killing the supervisor outright still stops the server (its IPC channel closes).
    const lastPid = listening(server.stdout())[2].pid as number;
    server.child.kill("SIGKILL");
    await server.exited;
    const deadline = Date.now() + 20_000;
    while (alive(lastPid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(alive(lastPid)).toBe(false);
  });

  it("a SIGKILLed supervisor takes its server along, even with a run executing and a long grace period", async () => {
    const config = join(dir, "langgraph.json");
    writeFileSync(config, JSON.stringify({ graphs: { slow: `${SLOW}:graph` } }));
    const args = [
      "dev",
      "--config",
      config,
      "--port",
      "0",
      "--data-dir",
      join(dir, "data"),
      "--grace-period",
      "600",
      "--log-format",
      "json",
    ];
    const server = await startCli(args);
    const serverPid = listening(server.stdout())[0].pid as number;
    const client = new Client({ apiUrl: server.url });
    const thread = await client.threads.create();
    const run = await client.runs.create(thread.thread_id, "slow", { input: { ms: 600_000 } });
    while ((await client.runs.get(thread.thread_id, run.run_id)).status !== "running") await new Promise((r) => setTimeout(r, 50));

    server.child.kill("SIGKILL");
    await server.exited;
    // Nobody is left to wait for or to send a second signal: the server stops now, not after 600 s.
    const deadline = Date.now() + 20_000;
    while (alive(serverPid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    const orphaned = alive(serverPid);
    if (orphaned) process.kill(serverPid, "SIGKILL"); // killAll no longer sees it: its supervisor is gone
    expect(orphaned).toBe(false);
    expect(await portIsFree(new URL(server.url))).toBe(true);
    expect(jsonLines(server.stdout()).some((l) => String(l.msg).startsWith("dev supervisor gone"))).toBe(true);
  });
});

/** Nothing accepts connections on the URL's port any more. */
function portIsFree(url: URL): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(Number(url.port), url.hostname);
    socket.once("connect", () => {
      socket.destroy();
      resolve(false);
    });
    socket.once("error", () => resolve(true));
  });
}
