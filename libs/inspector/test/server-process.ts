import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { Browser, Page } from "playwright-core";

/** The real CLI, run as a user runs it (bin -> tsx -> apps/server/src/main.ts): a path, not an import. */
const BIN = fileURLToPath(new URL("../../../apps/server/bin/agent-server.mjs", import.meta.url));
export const REPO_ROOT = fileURLToPath(new URL("../../../", import.meta.url));
export const EXAMPLE_CONFIG = fileURLToPath(new URL("../../../examples/langgraph.json", import.meta.url));
/** The example graphs (echo, approval) and `router`: conditional edges and a subgraph. */
export const FIXTURE_CONFIG = fileURLToPath(new URL("./fixture/langgraph.json", import.meta.url));
export const AUTH_CONFIG = fileURLToPath(new URL("./fixture/langgraph-auth.json", import.meta.url));
export const SERVE_INSPECTOR_CONFIG = fileURLToPath(new URL("./fixture/langgraph-serve-inspector.json", import.meta.url));

export interface ServerProcess {
  url: string;
  output(): string;
  stop(): Promise<void>;
}

/**
 * Starts `agent-server <command>` on the memory storage, a free port of 127.0.0.1 and without the reload
 * supervisor (so the process held here is the server), and resolves with its URL once it listens.
 */
export function startServer(command: "dev" | "serve", config: string, ...extra: string[]): Promise<ServerProcess> {
  const args = [BIN, command, "--config", config, "--storage", "memory", "--host", "127.0.0.1", "--port", "0", "--log-format", "json"];
  if (command === "dev") args.push("--no-reload");
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: "1" };
  delete env.POSTGRES_URL;
  delete env.POSTGRES_URI;
  const child: ChildProcess = spawn(process.execPath, [...args, ...extra], { cwd: REPO_ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let err = "";
  child.stdout!.setEncoding("utf8");
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (err += chunk));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    await exited;
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      void stop();
      reject(new Error(`agent-server ${command} did not start in 60 s\nstdout:\n${out}\nstderr:\n${err}`));
    }, 60_000);
    child.stdout!.on("data", (chunk: string) => {
      out += chunk;
      const match = out.match(/listening on (http:\/\/[^\s"]+)/);
      if (match) {
        clearTimeout(timer);
        resolve({ url: match[1]!, output: () => out, stop });
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`agent-server ${command} exited (${code}) before listening\nstdout:\n${out}\nstderr:\n${err}`));
    });
  });
}

/**
 * A page that records every request it makes: `foreign()` lists the ones to another origin than `origin`
 * (the inspector must make none), `problems()` what the page logged as an error.
 */
export async function watchedPage(browser: Browser, origin: string): Promise<{ page: Page; foreign(): string[]; problems(): string[] }> {
  const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  const foreign: string[] = [];
  const problems: string[] = [];
  page.on("request", (request) => {
    const url = new URL(request.url());
    if (url.protocol === "data:" || url.protocol === "blob:") return;
    if (url.origin !== origin) foreign.push(request.url());
  });
  page.on("pageerror", (error) => problems.push(`pageerror: ${error.message}`));
  page.on("console", (message) => {
    if (message.type() === "error") problems.push(`console: ${message.text()}`);
  });
  return { page, foreign: () => foreign, problems: () => problems };
}

/** Where the browser tests save a screenshot of each pane, when INSPECTOR_SCREENSHOTS names a folder. */
export async function screenshot(page: Page, name: string): Promise<void> {
  const dir = process.env.INSPECTOR_SCREENSHOTS;
  if (!dir) return;
  await page.screenshot({ path: `${dir}/${name}.png`, fullPage: false });
}
