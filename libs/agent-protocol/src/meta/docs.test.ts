import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser } from "playwright-core";
import { createMemoryStorage } from "@agent-server/storage-memory";
import { startTestServer, type TestServer } from "../../test/support/index.js";
import { launchChromium } from "../../test/support/chromium.js";

/** Swagger UI renders paths with zero-width spaces before each "/" so they wrap; compare without them. */
const plain = (text: string) => text.replace(/[\u200b\u00ad]/g, "");

describe("GET /docs (API reference)", () => {
  let server: TestServer;
  let browser: Browser;
  beforeAll(async () => {
    server = await startTestServer(createMemoryStorage());
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it("serves its assets itself, with content types and caching headers", async () => {
    const html = await fetch(`${server.url}/docs`);
    expect(html.status).toBe(200);
    expect(html.headers.get("content-type")).toMatch(/^text\/html/);
    expect(html.headers.get("cache-control")).toBe("no-cache");
    const body = await html.text();
    expect(body).not.toMatch(/https?:\/\//);

    const css = await fetch(`${server.url}/docs/assets/swagger-ui.css`);
    expect(css.status).toBe(200);
    expect(css.headers.get("content-type")).toBe("text/css; charset=utf-8");
    expect(css.headers.get("cache-control")).toMatch(/max-age=\d+/);
    const etag = css.headers.get("etag");
    expect(etag).toMatch(/swagger-ui-dist@/);
    expect((await css.text()).length).toBeGreaterThan(10_000);

    const js = await fetch(`${server.url}/docs/assets/swagger-ui-bundle.js`);
    expect(js.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(await js.text()).toContain("SwaggerUIBundle");
    const png = await fetch(`${server.url}/docs/assets/favicon-32x32.png`);
    expect(png.headers.get("content-type")).toBe("image/png");
    expect(new Uint8Array(await png.arrayBuffer()).slice(1, 4)).toEqual(new TextEncoder().encode("PNG"));

    const revalidated = await fetch(`${server.url}/docs/assets/swagger-ui.css`, { headers: { "If-None-Match": etag! } });
    expect(revalidated.status).toBe(304);
    const unknown = await fetch(`${server.url}/docs/assets/..%2Fpackage.json`);
    expect(unknown.status).toBe(404);
  });

  it("renders every documented path in a browser, without contacting any other host", async () => {
    const page = await browser.newPage();
    const requests: string[] = [];
    page.on("request", (request) => {
      requests.push(request.url());
    });
    const response = await page.goto(`${server.url}/docs`, { waitUntil: "load" });
    expect(response?.status()).toBe(200);
    await page.waitForSelector(".opblock-summary-path", { timeout: 20_000 });
    const text = plain(await page.locator("#swagger-ui").innerText());

    for (const path of [
      "/ok",
      "/info",
      "/assistants/search",
      "/assistants/{assistant_id}",
      "/store/items",
      "/runs/crons",
      "/internal/truncate",
    ]) {
      expect(text, path).toContain(path);
    }
    const doc = (await (await fetch(`${server.url}/openapi.json`)).json()) as { paths: Record<string, unknown> };
    expect(Object.keys(doc.paths).length).toBeGreaterThan(10);
    for (const path of Object.keys(doc.paths)) expect(text, path).toContain(path);

    expect(requests.length).toBeGreaterThan(2);
    for (const url of requests) {
      const { protocol, hostname } = new URL(url);
      if (protocol === "data:") continue;
      expect(["127.0.0.1", "localhost", "[::1]"], url).toContain(hostname);
    }
    expect(requests).toContain(`${server.url}/openapi.json`);
    await page.setViewportSize({ width: 1280, height: 1600 });
    await page.screenshot({ path: "/tmp/docs.png" });
    await page.close();
  });
});
