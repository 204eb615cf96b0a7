import { spawn, type ChildProcess } from "node:child_process";
import { createServer } from "node:net";
import { waitForOutput } from "@agent-server/server/testing";

/**
 * Every server the bench starts runs as the leader of its own process group (`detached`), so stopping it
 * also stops what it spawned itself (`langgraphjs dev` runs the API server in a tsx child, which runs
 * another node). Everything registered here is stopped by `cleanUp`, which the entry point calls in
 * `finally` and on SIGINT/SIGTERM.
 */
export interface ServerProcess {
  child: ChildProcess;
  pid: number;
  /** The last 64 KB of stdout and stderr, then how it exited if it did: for error messages. */
  output(): string;
  /** Resolves once `pattern` appears in the output; rejects if the process exits first or after `timeoutMs`. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  stop(): Promise<void>;
}

const OUTPUT_LIMIT = 64 * 1024;
const cleanups = new Set<() => Promise<void>>();
/** Process groups started and not yet stopped. */
const groups = new Set<number>();

/** Registers an async cleanup (a server, an embedded PostgreSQL, a temp folder); returns its remover. */
export function onCleanUp(fn: () => Promise<void>): () => void {
  cleanups.add(fn);
  return () => cleanups.delete(fn);
}

let cleaning: Promise<void> | undefined;

/**
 * Runs every registered cleanup, latest first; each failure is reported, none stops the others. Callers
 * that overlap (a signal handler and the entry point's `finally`) share one pass.
 */
export function cleanUp(): Promise<void> {
  cleaning ??= (async () => {
    for (const fn of [...cleanups].reverse()) {
      cleanups.delete(fn);
      try {
        await fn();
      } catch (error) {
        console.error(`cleanup failed: ${String(error)}`);
      }
    }
  })().finally(() => (cleaning = undefined));
  return cleaning;
}

/**
 * Runs a script's `main` with the processes it starts cleaned up however it ends: at its end, and at once
 * (SIGKILL) on Ctrl-C.
 */
export async function runScript(main: () => Promise<void>): Promise<void> {
  process.on("SIGINT", () => {
    killAllNow();
    process.exit(130);
  });
  try {
    await main();
  } finally {
    await cleanUp();
  }
}

/** SIGKILLs every process group still running, synchronously: for signal handlers and `exit`. */
export function killAllNow(): void {
  for (const pid of groups) killGroup(pid, "SIGKILL");
  groups.clear();
}

export function startProcess(command: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv }): ServerProcess {
  const child = spawn(command, args, { cwd: options.cwd, env: options.env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  if (child.pid === undefined) throw new Error(`could not start ${command}`);
  const pid = child.pid;
  groups.add(pid);
  let output = "";
  const listeners = new Set<() => void>();
  const append = (chunk: string) => {
    output = (output + chunk).slice(-OUTPUT_LIMIT);
    for (const listener of listeners) listener();
  };
  child.stdout!.setEncoding("utf8").on("data", append);
  child.stderr!.setEncoding("utf8").on("data", append);
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.once("exit", () => listeners.forEach((listener) => listener()));
  const stop = async () => {
    removeCleanUp();
    killGroup(pid, "SIGTERM");
    const gone = await Promise.race([exited.then(() => true), sleep(3_000).then(() => false)]);
    // The group may outlive its leader (a child still shutting down): SIGKILL whatever is left of it.
    killGroup(pid, "SIGKILL");
    groups.delete(pid);
    if (!gone) await Promise.race([exited, sleep(2_000)]);
  };
  const removeCleanUp = onCleanUp(stop);
  return {
    child,
    pid,
    output: () => {
      const status = child.exitCode ?? child.signalCode;
      return status === null ? output : `${output}\n[exited: ${status}]`;
    },
    stop,
    waitFor: (pattern, timeoutMs = 60_000) =>
      waitForOutput({
        child,
        listeners,
        output: () => output,
        pattern,
        timeoutMs,
        context: () => ` (${command}); output:\n${output.slice(-4000)}`,
      }),
  };
}

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    /* the group is gone */
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** A free loopback port, for servers that cannot be told `--port 0` (`langgraphjs dev` prints the port it was given). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Polls `url` until it answers 2xx; rejects after `timeoutMs` or when `server` exits. */
export async function waitForHttp(url: string, server: ServerProcess, timeoutMs = 90_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (server.child.exitCode !== null || server.child.signalCode !== null) {
      throw new Error(`server exited before ${url} answered; output:\n${server.output().slice(-4000)}`);
    }
    try {
      const response = await fetch(url);
      if (response.ok) return;
    } catch {
      /* not listening yet */
    }
    await sleep(200);
  }
  throw new Error(`${url} did not answer within ${timeoutMs} ms; output:\n${server.output().slice(-4000)}`);
}
