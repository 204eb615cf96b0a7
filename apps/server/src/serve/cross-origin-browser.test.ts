import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Browser } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { launchChromium } from "@agent-server/agent-protocol/testing";
import type { ScenarioResult } from "../../test/support/browser-page/cross-origin-page.js";
import { bundlePageScript, startPageServer, type PageServer } from "../../test/support/browser-page/page-server.js";
import { EXAMPLE_CONFIG, killAll, startCli, memoryDevArgs } from "../../test/support/cli-process.js";

const ECHO_GRAPH = fileURLToPath(new URL("../../../../examples/src/echo.ts", import.meta.url));

declare function crossOriginScenario(apiUrl: string): Promise<ScenarioResult>;
declare function tryFetch(url: string): Promise<string>;

// A frontend (agent-chat-ui, Studio, a useStream app) served from one origin calling the agent server
// on another: the real CLI, real Chromium, the official clients bundled into the page.
describe("a page on another origin, in Chromium", () => {
  let browser: Browser;
  let script: string;
  const pages: PageServer[] = [];
  const dirs: string[] = [];

  beforeAll(async () => {
    [browser, script] = await Promise.all([launchChromium(), bundlePageScript()]);
  });
  afterAll(async () => {
    await browser?.close();
  });
  afterEach(async () => {
    await killAll();
    await Promise.all(pages.splice(0).map((p) => p.close()));
    dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true }));
  });

  async function pageServer(): Promise<PageServer> {
    const server = await startPageServer(script);
    pages.push(server);
    return server;
  }

  /** Opens the page and runs `run(arg)` in it (serialized: `run` can only use `arg` and the page's globals). */
  async function inPage<T>(pageUrl: string, run: (arg: string) => Promise<T>, arg: string): Promise<T> {
    const page = await browser.newPage();
    try {
      await page.goto(pageUrl, { waitUntil: "load" });
      await page.waitForFunction(() => typeof (globalThis as { tryFetch?: unknown }).tryFetch === "function");
      return await page.evaluate(run, arg);
    } finally {
      await page.close();
    }
  }

  function expectScenarioWorked(result: ScenarioResult, apiUrl: string, pageUrl: string) {
    expect(result.origin).toBe(pageUrl);
    expect(result.origin).not.toBe(new URL(apiUrl).origin);
    expect(result.events[0]?.event).toBe("metadata");
    expect(result.events.slice(1).every((e) => e.event === "values")).toBe(true);
    expect(result.events.at(-1)?.reply).toBe("echo: hello from the page");
    // Content-Location reached the page: the SDK read the run id from it.
    expect(result.createdRunId).toMatch(/^[0-9a-f-]{36}$/);
    expect(result.createdRunId).toBe(result.metadataRunId);
    // X-Pagination-Next reached the page too (two graphs, one per page).
    expect(result.nextPage).toBe("1");
    expect(result.a2a.state).toBe("TASK_STATE_COMPLETED");
    expect(result.a2a.artifact).toEqual({ $case: "text", value: "echo: hello over A2A" });
    expect(result.a2a.fetchedArtifact).toEqual(result.a2a.artifact);
    // The A2A stream is SSE too: its events reached the page.
    expect(result.a2aStream.events.length).toBeGreaterThan(0);
    expect(result.a2aStream.state).toBe("TASK_STATE_COMPLETED");
    expect(result.a2aStream.artifact).toEqual({ $case: "text", value: "echo: streamed over A2A" });
  }

  it("streams a run with the LangGraph SDK and gets an A2A task's artifact, with no http.cors configured", async () => {
    const api = await startCli(memoryDevArgs(EXAMPLE_CONFIG));
    const page = await pageServer();
    const result = await inPage(page.url, (apiUrl) => crossOriginScenario(apiUrl), api.url);
    expectScenarioWorked(result, api.url, page.url);
  });

  it("with http.cors: the allowed origin works in the browser, another origin gets 'Failed to fetch'", async () => {
    const [allowed, other] = await Promise.all([pageServer(), pageServer()]);
    const dir = mkdtempSync(join(tmpdir(), "agent-server-cors-"));
    dirs.push(dir);
    const cors = { allow_origins: [allowed.url], allow_credentials: true, max_age: 600, expose_headers: ["X-Request-Id"] };
    writeFileSync(
      join(dir, "langgraph.json"),
      JSON.stringify({ graphs: { echo: `${ECHO_GRAPH}:graph`, other: `${ECHO_GRAPH}:graph` }, http: { cors } }),
    );
    const api = await startCli(memoryDevArgs(join(dir, "langgraph.json")));
    expectScenarioWorked(await inPage(allowed.url, (apiUrl) => crossOriginScenario(apiUrl), api.url), api.url, allowed.url);
    expect(await inPage(other.url, (url) => tryFetch(url), `${api.url}/threads`)).toBe("TypeError: Failed to fetch");

    // What the browser saw, header by header, on API and A2A routes alike.
    for (const path of ["/threads", "/a2a/echo", "/a2a/echo/message:send"]) {
      const preflight = await fetch(`${api.url}${path}`, {
        method: "OPTIONS",
        headers: {
          origin: allowed.url,
          "access-control-request-method": "POST",
          "access-control-request-headers": "content-type,a2a-version",
        },
      });
      expect(preflight.status, path).toBe(204);
      expect(preflight.headers.get("access-control-allow-origin"), path).toBe(allowed.url);
      expect(preflight.headers.get("access-control-allow-credentials"), path).toBe("true");
      expect(preflight.headers.get("access-control-max-age"), path).toBe("600");
      expect(preflight.headers.get("access-control-allow-headers"), path).toBe("content-type,a2a-version");
      const refused = await fetch(`${api.url}${path}`, {
        method: "OPTIONS",
        headers: { origin: other.url, "access-control-request-method": "POST" },
      });
      expect(refused.headers.get("access-control-allow-origin"), path).toBeNull();
    }
    for (const path of [
      "/.well-known/agent-card.json?assistant_id=echo",
      "/a2a/echo/.well-known/agent-card.json",
      "/a2a/nope/.well-known/agent-card.json",
    ]) {
      const card = await fetch(`${api.url}${path}`, { headers: { origin: allowed.url } });
      expect(card.headers.get("access-control-allow-origin"), path).toBe(allowed.url);
      expect(card.headers.get("access-control-expose-headers")?.toLowerCase().split(","), path).toEqual(
        expect.arrayContaining(["x-request-id", "content-location", "x-pagination-total", "x-pagination-next"]),
      );
    }
  });
});
