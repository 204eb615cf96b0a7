import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";

/** The real CLI entry, run as a user runs it (bin → tsx → src/main.ts). */
export const BIN = fileURLToPath(new URL("../../bin/agent-server.mjs", import.meta.url));
export const REPO_ROOT = fileURLToPath(new URL("../../../../", import.meta.url));
export const EXAMPLE_CONFIG = fileURLToPath(new URL("../../../../examples/langgraph.json", import.meta.url));

/**
 * `dev` on the memory storage, a free port, no reload supervisor (the server is the process the test
 * holds) and JSON logs (parsed with `jsonLines`), plus `extra` flags.
 */
export function memoryDevArgs(config: string, ...extra: string[]): string[] {
  return ["dev", "--config", config, "--storage", "memory", "--port", "0", "--no-reload", "--log-format", "json", ...extra];
}

export interface CliRun {
  child: ChildProcess;
  /** Everything written so far. */
  stdout(): string;
  stderr(): string;
  /** Resolves with the exit code (or 128 + signal number when killed by a signal). */
  exited: Promise<number>;
  /** Resolves once `pattern` appears in stdout; rejects if the process exits first or after `timeoutMs`. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
}

/** Every CLI process still running, with a way to read the pids it logged (a dev server's own child). */
const live = new Map<ChildProcess, () => string>();

/**
 * Spawns `agent-server <args>`. The environment is the test's, minus POSTGRES_URL/URI unless `env`
 * passes them, so a test decides which database the CLI sees. Call `killAll` in afterEach.
 */
export function runCli(args: string[], options: { env?: Record<string, string>; cwd?: string } = {}): CliRun {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: "1", ...options.env };
  if (!options.env?.POSTGRES_URL) delete env.POSTGRES_URL;
  if (!options.env?.POSTGRES_URI) delete env.POSTGRES_URI;
  const child = spawn(process.execPath, [BIN, ...args], { cwd: options.cwd ?? REPO_ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  live.set(child, () => out);
  let err = "";
  const listeners = new Set<() => void>();
  child.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
    out += chunk;
    for (const listener of listeners) listener();
  });
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (err += chunk));
  const exited = new Promise<number>((resolve) => {
    child.once("exit", (code, signal) => {
      live.delete(child);
      resolve(code ?? 128 + signalNumber(signal));
      for (const listener of listeners) listener();
    });
  });
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    exited,
    waitFor: (pattern, timeoutMs = 45_000) =>
      waitForOutput({ child, listeners, output: () => out, pattern, timeoutMs, context: () => `\nstdout:\n${out}\nstderr:\n${err}` }),
  };
}

/**
 * Resolves once `pattern` appears in `output()`, which `listeners` are called to check again whenever it
 * grows (and when the child exits); rejects if the child exits first or after `timeoutMs`, with `context()`
 * (what it wrote) in the error.
 */
export function waitForOutput(options: {
  child: ChildProcess;
  listeners: Set<() => void>;
  output: () => string;
  pattern: RegExp;
  timeoutMs: number;
  context: () => string;
}): Promise<RegExpMatchArray> {
  const { child, listeners, output, pattern, context } = options;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => done(new Error(`timed out waiting for ${pattern}${context()}`)), options.timeoutMs);
    const check = () => {
      const match = output().match(pattern);
      if (match) done(undefined, match);
      else if (child.exitCode !== null || child.signalCode !== null) {
        done(new Error(`exited (${child.exitCode ?? child.signalCode}) before ${pattern}${context()}`));
      }
    };
    const done = (error?: Error, match?: RegExpMatchArray) => {
      clearTimeout(timer);
      listeners.delete(check);
      if (error) reject(error);
      else resolve(match!);
    };
    listeners.add(check);
    check();
  });
}

/** Starts a server command and resolves with its URL, read from the "listening on" line. */
export async function startCli(args: string[], options: { env?: Record<string, string> } = {}): Promise<CliRun & { url: string }> {
  const run = runCli(args, options);
  const [, url] = await run.waitFor(/listening on (http:\/\/[^\s"]+)/);
  return { ...run, url };
}

/**
 * Kills every CLI process a test left running (SIGKILL: a test that wanted a clean stop did it itself),
 * and the server process a `dev` supervisor runs, found by the pid in its JSON logs.
 */
export async function killAll(): Promise<void> {
  const children = [...live];
  live.clear();
  await Promise.all(
    children.map(
      ([child, output]) =>
        new Promise<void>((resolve) => {
          // Only the latest server: earlier ones were stopped by the supervisor's restarts.
          const server = jsonLines(output())
            .map((l) => l.pid)
            .filter((pid) => typeof pid === "number" && pid !== child.pid)
            .at(-1);
          if (typeof server === "number") {
            try {
              process.kill(server, "SIGKILL");
            } catch {
              /* already gone */
            }
          }
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          child.once("exit", () => resolve());
          child.kill("SIGKILL");
        }),
    ),
  );
}

/** JSON log lines of a `--log-format json` process. */
/**
 * The first JSON log record of `server` that `matches`, once written: the server's logger writes its lines
 * within 200 ms of their making (observability/logger.ts), not before the response that follows them.
 */
export async function loggedRecord(
  server: { stdout(): string },
  matches: (record: Record<string, unknown>) => boolean,
  timeoutMs = 5_000,
): Promise<Record<string, unknown> | undefined> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = jsonLines(server.stdout()).find(matches);
    if (found || Date.now() > deadline) return found;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export function jsonLines(text: string): Record<string, unknown>[] {
  return text
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

function signalNumber(signal: NodeJS.Signals | null): number {
  return signal === "SIGKILL" ? 9 : signal === "SIGTERM" ? 15 : signal === "SIGINT" ? 2 : 0;
}
