import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium } from "@agent-server/agent-protocol/testing";
import { AUTH_CONFIG, startServer, watchedPage, type ServerProcess } from "../test/server-process.js";

/** Under custom auth (langgraph.json `auth.path`): the page is public, the data behind it is not. */
describe("/inspector under custom auth", () => {
  let server: ServerProcess;
  let browser: Browser;
  beforeAll(async () => {
    [server, browser] = await Promise.all([startServer("dev", AUTH_CONFIG), launchChromium()]);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it("serves the page and its files without credentials, like /docs", async () => {
    expect((await fetch(`${server.url}/inspector`)).status).toBe(200);
    expect((await fetch(`${server.url}/inspector/assets/app.js`)).status).toBe(200);
    expect((await fetch(`${server.url}/inspector/vendor/preact.mjs`)).status).toBe(200);
    expect((await fetch(`${server.url}/assistants/search`, { method: "POST", body: "{}" })).status).toBe(401);
  });

  it("without a token shows the API's 401 and nothing else; with the token it works", async () => {
    const { page, foreign } = await watchedPage(browser, new URL(server.url).origin);
    await page.goto(`${server.url}/inspector`);
    const alert = page.getByRole("alert");
    await alert.getByText("401 Unauthorized: missing or wrong x-api-key").waitFor();
    // No pane, no navigation, no data: the credentials form and the API's answer.
    await expect(page.getByRole("navigation").count()).resolves.toBe(0);
    await expect(page.getByRole("main").getByRole("link").count()).resolves.toBe(0);
    await expect(page.getByRole("img").count()).resolves.toBe(0);
    expect((await page.getByRole("main").innerText()).split("\n").filter(Boolean)).toEqual([
      "401 Unauthorized: missing or wrong x-api-key",
      "Enter the header and token the server expects above.",
    ]);

    await page.getByRole("textbox", { name: "Header" }).fill("x-api-key");
    await page.getByLabel("Token").fill("inspector-secret");
    await page.getByRole("button", { name: "Use credentials" }).click();
    await page.getByRole("navigation", { name: "Assistants" }).getByRole("link", { name: "echo", exact: true }).click();
    await page.getByRole("textbox", { name: "Message" }).fill("with a key");
    await page.getByRole("button", { name: "Send" }).click();
    await page.getByRole("log", { name: "Conversation" }).getByText("echo: with a key").waitFor();

    // Kept for the session only: sessionStorage, never localStorage or a cookie.
    expect(await page.evaluate("[localStorage.length, document.cookie, sessionStorage.length]")).toEqual([0, "", 1]);
    expect(foreign()).toEqual([]);
  });
});
