import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Browser, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { launchChromium } from "@agent-server/agent-protocol/testing";
import { bundleUseStreamPage, startPageServer, type PageServer } from "../../test/support/browser-page/page-server.js";
import { killAll, startCli } from "../../test/support/cli-process.js";
import { CHATTY_QUESTION, CHATTY_REPLY, chattyAnswer } from "../../test/support/fixture-project/chatty.js";

const CONFIG = fileURLToPath(new URL("../../test/support/fixture-project/langgraph-thread-stream.json", import.meta.url));

/** `dev` as a user starts it (SQLite, in a data dir of the test's), on a free port, JSON logs. */
function sqliteDevArgs(config: string, dataDir: string): string[] {
  return ["dev", "--config", config, "--storage", "sqlite", "--data-dir", dataDir, "--port", "0", "--no-reload", "--log-format", "json"];
}

/** What use-stream-page.tsx records (its own types live in a .tsx file, outside this project's tsc). */
interface ChatSnapshot {
  isLoading: boolean;
  messages: { type: string; text: string }[];
  interrupt?: unknown;
}
interface ChatLog {
  snapshots: ChatSnapshot[];
  threadId: string | null;
  errors: string[];
}
declare function mountChat(apiUrl: string): void;
declare const chatLog: ChatLog;

/** One request of the page to the agent server, as the browser sent it and what came back. */
interface Exchange {
  method: string;
  path: string;
  body?: string;
  status?: number;
  failure?: string;
}

/**
 * Records the page's traffic and what it logged, to tell what went wrong when a step times out. Requests
 * to the agent server are recorded by path (`/threads/...`), others (the page's own) by URL.
 */
function watch(page: Page, apiUrl: string) {
  const exchanges = new Map<unknown, Exchange>();
  const logged: string[] = [];
  page.on("request", (r) => {
    const path = r.url().startsWith(apiUrl) ? r.url().slice(apiUrl.length) : r.url();
    exchanges.set(r, { method: r.method(), path, body: r.postData() ?? undefined });
  });
  page.on("response", (r) => {
    const exchange = exchanges.get(r.request());
    if (exchange) exchange.status = r.status();
  });
  page.on("requestfailed", (r) => {
    const exchange = exchanges.get(r);
    if (exchange) exchange.failure = r.failure()?.errorText;
  });
  // Chromium's own favicon request, which the page server answers 404, is not the page's doing.
  page.on("console", (m) => {
    if (!m.location().url.endsWith("/favicon.ico")) logged.push(`${m.type()}: ${m.text()}`);
  });
  page.on("pageerror", (e) => logged.push(`pageerror: ${e.message}`));
  return {
    exchanges: () => [...exchanges.values()],
    report: () =>
      [
        "requests:",
        ...[...exchanges.values()].map(
          (e) => `  ${e.method} ${e.path} ${e.body ?? ""} -> ${e.status ?? "(no response)"}${e.failure ? ` (${e.failure})` : ""}`,
        ),
        "page console:",
        ...logged.map((line) => `  ${line}`),
      ].join("\n"),
  };
}

/** A stored message's text: its content is a string or a list of content blocks. */
function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  return (content as { type: string; text?: string }[])
    .filter((b) => b.type === "text")
    .map((b) => b.text)
    .join("");
}

/** The protocol commands the page sent, in order (POST /threads/{id}/commands bodies). */
function commands(exchanges: Exchange[]): { method: string; params: Record<string, unknown> }[] {
  return exchanges.filter((e) => e.method === "POST" && /^\/threads\/[^/]+\/commands$/.test(e.path)).map((e) => JSON.parse(e.body!));
}

// The chat a frontend builds with @langchain/react 1.x: `useStream` speaks the thread streaming protocol
// (Agent Protocol v2) only, from a page on another origin. The real CLI on SQLite, real Chromium, and
// the official hook bundled into a React page that the test drives through its DOM.
describe("a useStream (@langchain/react) page on another origin, in Chromium", () => {
  let browser: Browser;
  let script: string;
  const pages: PageServer[] = [];
  const dirs: string[] = [];

  beforeAll(async () => {
    [browser, script] = await Promise.all([launchChromium(), bundleUseStreamPage()]);
  });
  afterAll(async () => {
    await browser?.close();
  });
  afterEach(async () => {
    await killAll();
    await Promise.all(pages.splice(0).map((p) => p.close()));
    dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true }));
  });

  it("streams the reply token by token, shows the interrupt, and respond() resumes the run to its end", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "agent-server-thread-stream-"));
    dirs.push(dataDir);
    const api = await startCli(sqliteDevArgs(CONFIG, dataDir));
    const pageServer = await startPageServer(script);
    pages.push(pageServer);
    expect(new URL(pageServer.url).origin).not.toBe(new URL(api.url).origin);

    const page = await browser.newPage();
    const seen = watch(page, api.url);
    // Generous: these machines are small and shared; a step that takes long is not what this test is about.
    const timeout = 60_000;
    try {
      await page.goto(pageServer.url, { waitUntil: "load" });
      await page.waitForFunction(() => typeof (globalThis as { mountChat?: unknown }).mountChat === "function");
      await page.evaluate((url) => mountChat(url), api.url);

      await page.fill("#draft", "hello");
      await page.click("#composer button");
      expect(await page.locator("#question").textContent({ timeout })).toBe(CHATTY_QUESTION);
      await page.locator("#status", { hasText: "idle" }).waitFor({ timeout });
      const atInterrupt = await page.evaluate(() => chatLog);

      await page.fill("#answer", "blue");
      await page.click("#interrupt button");
      await page.locator("#messages li", { hasText: chattyAnswer("blue") }).waitFor({ timeout });
      await page.locator("#status", { hasText: "idle" }).waitFor({ timeout });
      await page.locator("#question").waitFor({ state: "detached", timeout });
      const log = await page.evaluate(() => chatLog);

      expect(log.errors).toEqual([]);
      // Tokens reached the page while the first run was still going: the reply grew render by render.
      const firstInterrupt = atInterrupt.snapshots.findIndex((s) => s.interrupt != null);
      expect(firstInterrupt).toBeGreaterThan(0);
      const partial = new Set(
        atInterrupt.snapshots
          .slice(0, firstInterrupt)
          .filter((s) => s.isLoading)
          .map((s) => s.messages.find((m) => m.type === "ai")?.text ?? "")
          .filter((text) => text !== "" && text !== CHATTY_REPLY),
      );
      expect(partial.size, `renders of the reply: ${JSON.stringify([...partial])}`).toBeGreaterThanOrEqual(3);
      for (const text of partial) expect(CHATTY_REPLY.startsWith(text), text).toBe(true);
      expect(atInterrupt.snapshots[firstInterrupt]!.interrupt).toEqual({ question: CHATTY_QUESTION });
      expect(atInterrupt.snapshots.at(-1)).toMatchObject({ isLoading: false, interrupt: { question: CHATTY_QUESTION } });

      const expected = [
        { type: "human", text: "hello" },
        { type: "ai", text: CHATTY_REPLY },
        { type: "ai", text: chattyAnswer("blue") },
      ];
      expect(log.snapshots.at(-1)).toEqual({ isLoading: false, messages: expected });
      expect(await page.locator("#messages li").allTextContents()).toEqual(expected.map((m) => m.text));

      // The page spoke the thread streaming protocol: a run.start, then the resume as input.respond.
      const sent = commands(seen.exchanges());
      const methods = sent.map((c) => c.method);
      expect(methods.filter((m) => m === "run.start" || m === "input.respond")).toEqual(["run.start", "input.respond"]);
      expect(sent.find((c) => c.method === "input.respond")?.params).toMatchObject({ response: "blue", namespace: [] });
      expect(seen.exchanges().some((e) => e.path.endsWith("/stream/events") && e.status === 200)).toBe(true);

      // And the server kept what the page saw.
      const state: any = await (await fetch(`${api.url}/threads/${log.threadId}/state`)).json();
      expect(state.next).toEqual([]);
      expect(state.values.messages.map((m: any) => [m.type, textOf(m.content)])).toEqual(expected.map((m) => [m.type, m.text]));
    } catch (error) {
      const tail = api.stdout().split("\n").slice(-60).join("\n");
      throw Object.assign(error as Error, { message: `${(error as Error).message}\n${seen.report()}\nserver log (tail):\n${tail}` });
    } finally {
      await page.close();
    }
  });
});
