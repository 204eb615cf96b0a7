import { spawn, type ChildProcess } from "node:child_process";
import { watch, type FSWatcher } from "node:fs";
import { readFile } from "node:fs/promises";
import { dirname, isAbsolute, relative, resolve, sep } from "node:path";
import { UsageError } from "../cli/index.js";
import { BIN } from "../package-files.js";

/** Set in the environment of the server process a dev supervisor runs (it must not supervise itself). */
export const SUPERVISED_ENV = "AGENT_SERVER_SUPERVISED";

/** How often the supervised server checks its parent pid (the backstop to the IPC channel's `disconnect`). */
const PARENT_POLL_MS = 1000;

/**
 * In the server process a dev supervisor runs (`SUPERVISED_ENV`): calls `onGone` once when the
 * supervisor is gone, however it died (SIGKILL and the OOM killer included), so the server never lives
 * on as an orphan holding its port. Install it first thing, before the server starts.
 *
 * Two signals, so neither is a single point of failure on Linux:
 * - the IPC channel's `disconnect`: the kernel closes the supervisor's end of the socket pair when it
 *   dies, whatever killed it, and the event comes at once, without polling. A death before this was
 *   installed already closed the channel: `process.connected` is false, and `onGone` is called now.
 * - a poll of `process.ppid`: an orphan is re-parented (to init or a subreaper), so its parent pid
 *   changes. It catches a server started with `SUPERVISED_ENV` but no IPC channel, where there is no
 *   `disconnect` to wait for. (Linux's PR_SET_PDEATHSIG would need a native addon.)
 */
export function followSupervisor(onGone: () => void): void {
  const parent = process.ppid;
  let gone = false;
  const timer = setInterval(() => {
    if (process.ppid !== parent) notice();
  }, PARENT_POLL_MS);
  timer.unref();
  function notice() {
    if (gone) return;
    gone = true;
    clearInterval(timer);
    onGone();
  }
  process.once("disconnect", notice);
  if (process.send && !process.connected) notice();
}

/** Messages the supervised server sends over IPC. */
export type ChildMessage = { type: "ready"; port: number };

// CSS: generative UI bundles (langgraph.json `ui`) import stylesheets.
const SOURCE = /\.(m|c)?(t|j)sx?$|\.json$|\.css$|(^|[/\\])\.env[^/\\]*$/;
const IGNORED = /(^|[/\\])(node_modules|\.git|\.agent-server|\.nx|dist)([/\\]|$)/;

/**
 * Where a project's code lives, from langgraph.json: the project folder itself (langgraph.json, .env,
 * files at its top), and recursively each other folder an entry (graph, auth.path, http.app, ui,
 * storage.path) lives in:
 * `./src/agent.ts` → `src/`. node_modules and dot folders are never walked.
 */
export async function watchTargets(configPath: string): Promise<{ path: string; recursive: boolean }[]> {
  let config: {
    graphs?: Record<string, unknown>;
    auth?: { path?: unknown };
    http?: { app?: unknown };
    ui?: Record<string, unknown>;
    storage?: { path?: unknown };
  };
  try {
    config = JSON.parse(await readFile(configPath, "utf8"));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") {
      throw new UsageError(`config file not found: ${configPath} (pass --config <path to langgraph.json>)`);
    }
    throw new UsageError(`cannot read ${configPath}: ${(error as Error).message}`);
  }
  const cwd = dirname(configPath);
  const specs = [
    ...Object.values(config.graphs ?? {}),
    config.auth?.path,
    config.http?.app,
    ...Object.values(config.ui ?? {}),
    config.storage?.path,
  ]
    .map((spec) => (typeof spec === "object" && spec !== null ? (spec as { path?: unknown }).path : spec))
    .filter((spec): spec is string => typeof spec === "string");
  const targets = new Map<string, boolean>([[cwd, false]]);
  for (const spec of specs) {
    const file = spec.split(":", 1)[0];
    if (!file.startsWith(".") && !isAbsolute(file)) continue; // a package: not the project's code
    const path = resolve(cwd, file);
    const inside = relative(cwd, path);
    if (inside.startsWith("..") || isAbsolute(inside)) targets.set(dirname(path), true);
    else if (inside.includes(sep) && !IGNORED.test(inside.split(sep)[0] + sep)) targets.set(resolve(cwd, inside.split(sep)[0]), true);
  }
  return [...targets].map(([path, recursive]) => ({ path, recursive }));
}

/**
 * `agent-server dev` with reload: runs the server in a child process and restarts it when a source
 * file of the project changes, as `langgraphjs dev` does. The server runs in its own process group so
 * a terminal's Ctrl-C reaches it once, through here; if this process dies, the server notices
 * (`followSupervisor`) and stops by itself. Resolves with the exit code to leave with.
 */
export async function superviseWithReload(
  argv: string[],
  configPath: string,
  log: (line: string) => void,
  /** Files the server itself writes (the `--snapshot-save` file): changes to them never restart it. */
  ignoredFiles: readonly string[] = [],
): Promise<number> {
  const targets = await watchTargets(configPath);
  let child: ChildProcess | undefined;
  let port: number | undefined;
  let everReady = false;
  let restarting = false;
  let stopping: NodeJS.Signals | undefined;
  let pending: string | undefined;
  let timer: NodeJS.Timeout | undefined;
  let finish!: (code: number) => void;
  const finished = new Promise<number>((resolve) => (finish = resolve));

  const start = () => {
    // After a restart keep the port the first start got (`--port 0` would otherwise move it); the last --port wins.
    const args = port === undefined ? argv : [...argv, "--port", String(port)];
    const current = spawn(process.execPath, [BIN, ...args], {
      env: { ...process.env, [SUPERVISED_ENV]: "1" },
      stdio: ["inherit", "inherit", "inherit", "ipc"],
      detached: true,
    });
    child = current;
    current.on("message", (message: ChildMessage) => {
      if (message?.type !== "ready") return;
      everReady = true;
      port = message.port;
    });
    current.once("exit", (code, signal) => {
      if (child === current) child = undefined;
      const status = code ?? (signal === "SIGINT" ? 130 : 143);
      if (stopping) return finish(status);
      if (restarting) return;
      // A first start that fails (bad config, database down) ends dev at once, like --no-reload; a crash
      // after that waits for the fix.
      if (!everReady || status === 0) return finish(status);
      log(`[reload] server exited with code ${status}: waiting for a file change to restart`);
    });
  };

  const restart = async (file: string) => {
    if (stopping) return;
    restarting = true;
    log(`[reload] ${file} changed: restarting the server`);
    const current = child;
    if (current && current.exitCode === null && current.signalCode === null) {
      const exited = new Promise((resolve) => current.once("exit", resolve));
      current.kill("SIGTERM");
      await exited;
    }
    restarting = false;
    if (stopping) finish(0);
    else start();
  };

  const onChange = (root: string) => (_event: string, name: string | Buffer | null) => {
    const file = name ? resolve(root, name.toString()) : root;
    if (!SOURCE.test(file) || IGNORED.test(relative(root, file)) || ignoredFiles.includes(file)) return;
    const shown = relative(process.cwd(), file);
    pending = shown && !shown.startsWith("..") ? shown : file;
    clearTimeout(timer);
    // Editors write a file in several steps: restart once they are done.
    timer = setTimeout(() => void restart(pending!), 250);
  };
  const watchers: FSWatcher[] = targets.map(({ path, recursive }) => watch(path, { recursive }, onChange(path)));

  const onSignal = (signal: NodeJS.Signals) => {
    // The first signal asks the server for a graceful stop; a second one is passed on too (exit now).
    stopping = signal;
    clearTimeout(timer);
    if (child) child.kill(signal);
    else if (!restarting) finish(0);
  };
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const)
    process.on(signal, () => onSignal(signal === "SIGHUP" ? "SIGTERM" : signal));

  start();
  const code = await finished;
  for (const watcher of watchers) watcher.close();
  return code;
}
