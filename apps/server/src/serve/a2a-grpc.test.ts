import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { AgentCard, SendMessageRequest, TaskState, type Task } from "@a2a-js/sdk";
import { ClientFactory, ClientFactoryOptions, type Client } from "@a2a-js/sdk/client";
import { GrpcTransportFactory } from "@a2a-js/sdk/client/grpc";
import { InvalidInputError } from "@agent-server/core";
import { loadLangGraphConfig } from "@agent-server/engine";
import { pino } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { parseCli } from "../cli/index.js";
import { EXAMPLE_CONFIG, jsonLines, killAll, runCli, startCli } from "../../test/support/cli-process.js";
import { parsePrometheusText } from "../../test/support/prometheus-text.js";
import { freePort } from "../../test/support/ports.js";
import { startServer } from "./start-server.js";

/**
 * The A2A gRPC binding as the CLI serves it: `--grpc-port` (or langgraph.json `a2a.grpc_port`, the flag
 * winning), the port in the log and on every card, calls through the official client's gRPC transport,
 * the project's auth applied to them, and a port in use explained in one line.
 */
const FIXTURES = fileURLToPath(new URL("../../test/support/fixture-project/", import.meta.url));
const UNAUTHENTICATED = 16;

afterEach(async () => {
  await killAll();
});

async function cardOf(base: string, assistant: string, headers: Record<string, string> = {}): Promise<AgentCard> {
  const response = await fetch(`${base}/a2a/${assistant}/.well-known/agent-card.json`, { headers });
  expect(response.status).toBe(200);
  return AgentCard.fromJSON(await response.json());
}

/** The official client from `card`, over gRPC only, sending `metadata` with every call. */
async function grpcClient(card: AgentCard, metadata: Record<string, string> = {}): Promise<Client> {
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new GrpcTransportFactory()],
      preferredTransports: ["GRPC"],
      clientConfig: {
        interceptors: [
          {
            before: async (args) => {
              args.options = { ...args.options, serviceParameters: { ...args.options?.serviceParameters, ...metadata } };
            },
            after: async () => undefined,
          },
        ],
      },
    }),
  );
  const client = await factory.createFromAgentCard(card);
  expect((client as unknown as { transport: { protocolName: string } }).transport.protocolName).toBe("GRPC");
  return client;
}

async function say(client: Client, text: string): Promise<Task> {
  const result = await client.sendMessage(
    SendMessageRequest.fromJSON({ message: { messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text }] } }),
  );
  if (!("status" in result)) throw new Error(`expected a task, got ${JSON.stringify(result)}`);
  return result;
}

function texts(task: Task): string[] {
  return task.artifacts.flatMap((a) => a.parts.flatMap((p) => (p.content?.$case === "text" ? [p.content.value] : [])));
}

async function takenPort(): Promise<{ port: number; server: Server }> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { port: (server.address() as { port: number }).port, server };
}

describe("agent-server serve --grpc-port", () => {
  it("logs the bound gRPC port, lists it on the cards, and serves SendMessage over it", async () => {
    // serve binds 0.0.0.0: the card names the host it was fetched from.
    const server = await startCli(["serve", "--config", EXAMPLE_CONFIG, "--storage", "memory", "--port", "0", "--grpc-port", "0"]);
    const [, host, port] = await server.waitFor(/A2A gRPC listening on ([^\s"]+):(\d+)/);
    expect(host).toBe("0.0.0.0");
    expect(jsonLines(server.stdout()).find((l) => String(l.msg).startsWith("A2A gRPC listening"))).toMatchObject({
      grpc: `0.0.0.0:${port}`,
    });
    const base = server.url.replace("0.0.0.0", "127.0.0.1");
    const card = await cardOf(base, "approval");
    expect(card.supportedInterfaces.find((i) => i.protocolBinding === "GRPC")).toEqual({
      url: `dns:///127.0.0.1:${port}`,
      protocolBinding: "GRPC",
      tenant: "approval",
      protocolVersion: "1.0",
    });

    const echo = await grpcClient(await cardOf(base, "echo"));
    const task = await say(echo, "over grpc");
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(texts(task)).toEqual(["echo: over grpc"]);
    expect(await echo.getTask({ tenant: "", id: task.id })).toEqual(task);
    // Counted by binding in /metrics.
    const metrics = parsePrometheusText(await (await fetch(`${base}/metrics`)).text());
    expect(metrics.value("agent_server_a2a_calls_total", { binding: "grpc", method: "SendMessage", outcome: "ok" })).toBe(1);
    expect(metrics.value("agent_server_a2a_calls_total", { binding: "grpc", method: "GetTask", outcome: "ok" })).toBe(1);

    server.child.kill("SIGTERM");
    expect(await server.exited).toBe(0);
  });

  it("a card read the moment /ready first answers 200 already lists the GRPC interface", async () => {
    // A fixed HTTP port, so /ready can be polled from the moment the process starts (port 0 is only
    // known from the log line, written after everything is bound).
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const server = runCli(["serve", "--config", EXAMPLE_CONFIG, "--storage", "memory", "--port", String(port), "--grpc-port", "0"]);
    let card: AgentCard | undefined;
    const deadline = Date.now() + 60_000;
    while (!card && Date.now() < deadline) {
      const ready = await fetch(`${base}/ready`).catch(() => undefined);
      if (ready?.status === 200) {
        // Before anything else happens: the first 200 is the moment a client would build itself from the card.
        const response = fetch(`${base}/a2a/echo/.well-known/agent-card.json`);
        card = AgentCard.fromJSON(await (await response).json());
      } else {
        await ready?.body?.cancel();
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
    }
    expect(card?.supportedInterfaces.map((i) => i.protocolBinding)).toEqual(["JSONRPC", "HTTP+JSON", "JSONRPC", "GRPC"]);
    const [, grpcPort] = await server.waitFor(/A2A gRPC listening on [^\s"]+:(\d+)/);
    expect(card!.supportedInterfaces.at(-1)).toMatchObject({
      url: `dns:///127.0.0.1:${grpcPort}`,
      protocolBinding: "GRPC",
      tenant: "echo",
    });
    expect(await say(await grpcClient(card!), "ready")).toMatchObject({ status: { state: TaskState.TASK_STATE_COMPLETED } });
    server.child.kill("SIGTERM");
    expect(await server.exited).toBe(0);
  });

  it("a gRPC port in use exits 2 with one line naming it and the way out, before announcing anything", async () => {
    const taken = await takenPort();
    try {
      const run = runCli(["serve", "--config", EXAMPLE_CONFIG, "--storage", "memory", "--port", "0", "--grpc-port", String(taken.port)]);
      expect(await run.exited).toBe(2);
      const output = run.stdout() + run.stderr();
      const lines = output.split("\n").filter((line) => line.includes("already in use"));
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain(`gRPC port ${taken.port} on 0.0.0.0 is already in use`);
      expect(lines[0]).toContain("--grpc-port <n> (--grpc-port 0 picks a free one); this one is from --grpc-port");
      expect(output).not.toMatch(/^\s+at /m);
      expect(output).not.toContain("listening on");
    } finally {
      await new Promise((resolve) => taken.server.close(resolve));
    }
  });
});

describe("gRPC settings of startServer", () => {
  const project = () => loadLangGraphConfig(join(FIXTURES, "langgraph.json"));
  const options = (...extra: string[]) => {
    const parsed = parseCli(
      ["dev", "--port", "0", "--no-reload", "--storage", "memory", "--config", join(FIXTURES, "langgraph.json"), ...extra],
      {},
    );
    if (parsed.kind !== "run") throw new Error("expected a run");
    return parsed.options;
  };
  const silent = pino({ level: "silent" });

  it("is off by default, on with a2a.grpc_port, and the flag wins over the file", async () => {
    const off = await startServer(options(), await project(), silent);
    try {
      expect(off.grpcUrl).toBeUndefined();
      expect((await cardOf(off.url, "echo")).supportedInterfaces.map((i) => i.protocolBinding)).not.toContain("GRPC");
    } finally {
      await off.stop(0);
    }
    const taken = await takenPort();
    try {
      const fromFile = await project();
      fromFile.config.a2a = { grpc_port: taken.port };
      // The file's port is in use: one line naming it, the flag to choose another and where it came from.
      const error = await startServer(options(), fromFile, silent).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(InvalidInputError);
      expect((error as Error).message).toBe(
        `gRPC port ${taken.port} on 127.0.0.1 is already in use: stop what is using it, or choose another port with --grpc-port <n> (--grpc-port 0 picks a free one); this one is from a2a.grpc_port in langgraph.json`,
      );
      const flagWins = await startServer(options("--grpc-port", "0"), fromFile, silent);
      try {
        expect(flagWins.grpcUrl).toMatch(/^127\.0\.0\.1:\d+$/);
        expect(flagWins.grpcUrl).not.toBe(`127.0.0.1:${taken.port}`);
        const card = await cardOf(flagWins.url, "echo");
        expect(card.supportedInterfaces.at(-1)).toMatchObject({
          protocolBinding: "GRPC",
          url: `dns:///${flagWins.grpcUrl}`,
          tenant: "echo",
        });
        expect(texts(await say(await grpcClient(card), "flag"))).toEqual(["echo: flag"]);
      } finally {
        await flagWins.stop(0);
      }
    } finally {
      await new Promise((resolve) => taken.server.close(resolve));
    }
  });

  it("applies the project's auth to gRPC calls, read from their metadata", async () => {
    const authProject = await loadLangGraphConfig(join(FIXTURES, "langgraph-auth.json"));
    const parsed = parseCli(
      ["dev", "--port", "0", "--no-reload", "--storage", "memory", "--grpc-port", "0", "--config", join(FIXTURES, "langgraph-auth.json")],
      {},
    );
    if (parsed.kind !== "run") throw new Error("expected a run");
    const server = await startServer(parsed.options, authProject, silent);
    try {
      const card = await cardOf(server.url, "echo", { "x-api-key": "fixture-secret" });
      const refused = await (await grpcClient(card)).getTask({ tenant: "", id: "x" }).then(
        () => undefined,
        (e: unknown) => e as { status?: number; message: string },
      );
      expect(refused?.status).toBe(UNAUTHENTICATED);
      expect(refused?.message).toContain("bad api key");
      const task = await say(await grpcClient(card, { "x-api-key": "fixture-secret" }), "with key");
      expect(texts(task)).toEqual(["echo: with key"]);
    } finally {
      await server.stop(0);
    }
  });

  it("validates the flag", () => {
    expect(() => parseCli(["dev", "--grpc-port", "70000"], {})).toThrow(/--grpc-port must be an integer from 0 to 65535/);
    expect(() => parseCli(["dev", "--grpc-port", "abc"], {})).toThrow(/--grpc-port/);
    expect(() => parseCli(["migrate", "--grpc-port", "0"], {})).toThrow(/--grpc-port is for dev and serve/);
  });
});
