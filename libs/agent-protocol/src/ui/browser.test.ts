import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { build } from "esbuild";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMemoryStorage } from "@agent-server/storage-memory";
import { startTestServer, type TestServer } from "../../test/support/index.js";
import { launchChromium } from "../../test/support/chromium.js";
import { bundleUi } from "./bundle.js";

/** What this test calls in the page (the project's TypeScript has no DOM lib). */
interface Window {
  getComputedStyle(element: unknown): { color: string };
}

/**
 * A frontend as the SDK documents it: React renders `LoadExternalComponent` of
 * `@langchain/langgraph-sdk/react-ui`, whose Client fetches the component's HTML from POST /ui/{agent};
 * the component (a hook, a click, a stylesheet) must run on the page's own React inside a shadow root.
 */
const PAGE_SCRIPT = `
import { createElement } from "react";
import { createRoot } from "react-dom/client";
import { Client } from "@langchain/langgraph-sdk";
import { LoadExternalComponent } from "@langchain/langgraph-sdk/react-ui";

const client = new Client({ apiUrl: location.origin });
const message = { id: "ui-1", type: "ui", name: "weather", props: { city: "Paris" }, metadata: {} };
createRoot(document.getElementById("root")).render(
  createElement(LoadExternalComponent, { stream: { client, assistantId: "weather-agent" }, message, fallback: "loading…" }),
);
`;

const COMPONENTS = `
import { useState } from "react";
import "./weather.css";

function Weather(props: { city: string }) {
  const [clicks, setClicks] = useState(0);
  return <button className="weather" onClick={() => setClicks(clicks + 1)}>Weather for {props.city}: {clicks} clicks</button>;
}

export default { weather: Weather };
`;

describe("generative UI in a browser (LoadExternalComponent of the official SDK)", () => {
  let project: string;
  let server: TestServer;
  let browser: Browser;
  let pageScript: string;

  beforeAll(async () => {
    project = mkdtempSync(join(tmpdir(), "agent-server-ui-browser-"));
    writeFileSync(join(project, "ui.tsx"), COMPONENTS);
    writeFileSync(join(project, "weather.css"), ".weather { color: rgb(0, 128, 128); }\n");
    const ui = await bundleUi({ "weather-agent": "./ui.tsx" }, { cwd: project });
    server = await startTestServer(createMemoryStorage(), { app: { ui } });

    const page = await build({
      stdin: { contents: PAGE_SCRIPT, resolveDir: import.meta.dirname, loader: "js" },
      bundle: true,
      write: false,
      format: "iife",
      platform: "browser",
      define: { "process.env.NODE_ENV": '"production"' },
      logLevel: "silent",
    });
    pageScript = page.outputFiles[0].text;
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    rmSync(project, { recursive: true, force: true });
  });

  it("renders the server's component on the page's React, with its stylesheet, and it reacts to clicks", async () => {
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on("pageerror", (error) => errors.push(error.message));
    // The frontend is served on the server's own origin (cross-origin pages are a matter of CORS).
    await page.route(`${server.url}/app`, (route) =>
      route.fulfill({
        contentType: "text/html",
        body: `<!doctype html><div id="root"></div><script>${pageScript.replace(/<\/script/g, "<\\/script")}</script>`,
      }),
    );
    await page.goto(`${server.url}/app`);

    const button = page.locator("button.weather");
    const label = () => button.textContent({ timeout: 500 }).catch(() => null);
    await expect.poll(label, { timeout: 10_000 }).toBe("Weather for Paris: 0 clicks");
    expect(await button.evaluate((el) => (el.getRootNode() as unknown as { host?: { id: string } }).host?.id)).toMatch(/^child-shadow-/);
    expect(await button.evaluate((el) => (globalThis as unknown as Window).getComputedStyle(el).color)).toBe("rgb(0, 128, 128)");
    await button.click();
    await button.click();
    await expect.poll(label).toBe("Weather for Paris: 2 clicks");
    expect(errors).toEqual([]);
    await page.close();
  });
});
