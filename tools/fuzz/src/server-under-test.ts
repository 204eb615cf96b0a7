import { createServer, type Server } from "node:http";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { EXAMPLE_CONFIG, startCli, type CliRun } from "@agent-server/server/testing";

/** langgraph.json of the example graphs behind the `x-user` owner auth (fixture/owner-auth.ts). */
export const OWNER_AUTH_CONFIG = fileURLToPath(new URL("./fixture/langgraph.json", import.meta.url));

/** `agent-server dev` on a real SQLite file, as the process the harness holds (no reload supervisor). */
export interface ServerUnderTest {
  url: string;
  /** The A2A gRPC port (`--grpc-port 0`) as a gRPC target, `host:port`. */
  grpcTarget: string;
  dbFile: string;
  auth: boolean;
  /** Undefined while the server answers GET /ok; else why not (exited with code, no answer). */
  down(): Promise<string | undefined>;
  /** Starts the server again on the same data dir (after it died), on a new port. */
  restart(): Promise<void>;
  stop(): Promise<void>;
  /** A position in the server's output, for `errorSince`. */
  logMark(): LogMark;
  /** The first error the server logged after `mark` (an `Error:` line or a JSON line of level ≥ 50), cut to one line. */
  errorSince(mark: LogMark): string | undefined;
}

/** Lengths of the server's stdout and stderr at some moment. */
export type LogMark = [stdout: number, stderr: number];

function firstError(output: string): string | undefined {
  for (const line of output.split("\n")) {
    const plain = /^\s*(?:Uncaught )?(\w*Error\b[:\s].*)$/.exec(line);
    if (plain) return plain[1]!.trim().slice(0, 160);
    if (line.startsWith("{") && /"level":(?:5\d|6\d)/.test(line)) {
      try {
        const entry = JSON.parse(line) as { msg?: string; err?: { message?: string } };
        return `${entry.msg ?? ""} ${entry.err?.message ?? ""}`.trim().slice(0, 160);
      } catch {
        /* a cut line */
      }
    }
  }
  return undefined;
}

export async function startServerUnderTest(options: { auth: boolean; dataDir: string }): Promise<ServerUnderTest> {
  const config = options.auth ? OWNER_AUTH_CONFIG : EXAMPLE_CONFIG;
  const args = [
    "dev",
    "--config",
    config,
    "--port",
    "0",
    "--grpc-port",
    "0",
    "--no-reload",
    "--data-dir",
    options.dataDir,
    "--log-format",
    "json",
  ];
  let run: CliRun & { url: string } = await startCli(args);
  const grpcTargetOf = async (started: CliRun) => (await started.waitFor(/A2A gRPC listening on ([^\s"]+)/))[1]!;
  const server: ServerUnderTest = {
    url: run.url,
    grpcTarget: await grpcTargetOf(run),
    dbFile: join(options.dataDir, "agent-server.sqlite"),
    auth: options.auth,
    async down() {
      if (run.child.exitCode !== null || run.child.signalCode !== null) {
        return `process exited (${run.child.exitCode ?? run.child.signalCode}); stderr: ${run.stderr().slice(-500)}`;
      }
      try {
        const answer = await fetch(`${server.url}/ok`, { signal: AbortSignal.timeout(10_000) });
        return answer.status === 200 ? undefined : `GET /ok answered ${answer.status}`;
      } catch (error) {
        return `GET /ok failed: ${(error as Error).message}`;
      }
    },
    async restart() {
      await server.stop();
      run = await startCli(args);
      server.url = run.url;
      server.grpcTarget = await grpcTargetOf(run);
    },
    logMark() {
      return [run.stdout().length, run.stderr().length];
    },
    errorSince([out, err]) {
      return firstError(run.stdout().slice(out)) ?? firstError(run.stderr().slice(err));
    },
    async stop() {
      if (run.child.exitCode !== null || run.child.signalCode !== null) return;
      const exited = run.exited;
      run.child.kill("SIGKILL");
      await exited;
    },
  };
  return server;
}

/** A loopback receiver for webhooks and push notifications: answers 200 to everything and counts the hits. */
export async function startSink(): Promise<{ url: string; hits: () => number; close: () => Promise<void> }> {
  let hits = 0;
  const sink: Server = createServer((request, response) => {
    hits++;
    request.resume();
    request.on("end", () => response.end("ok"));
  });
  await new Promise<void>((resolve) => sink.listen(0, "127.0.0.1", resolve));
  const address = sink.address() as { port: number };
  return {
    url: `http://127.0.0.1:${address.port}`,
    hits: () => hits,
    close: () =>
      new Promise((resolve) => {
        sink.closeAllConnections();
        sink.close(() => resolve());
      }),
  };
}
