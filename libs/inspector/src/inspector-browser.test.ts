import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium } from "@agent-server/agent-protocol/testing";
import { FIXTURE_CONFIG, screenshot, startServer, watchedPage, type ServerProcess } from "../test/server-process.js";

/**
 * The inspector as a person uses it, in headless Chromium against a real `agent-server dev` with the
 * example graphs (echo, approval), a router with conditional edges and a subgraph, and a tool-calling chat: only roles and accessible names, as the page's contract names them.
 * Every request the page makes must go to the server's own origin.
 */
describe("/inspector in a browser (agent-server dev)", () => {
  let server: ServerProcess;
  let browser: Browser;
  let page: Page;
  let watched: Awaited<ReturnType<typeof watchedPage>>;

  beforeAll(async () => {
    [server, browser] = await Promise.all([startServer("dev", FIXTURE_CONFIG), launchChromium()]);
    watched = await watchedPage(browser, new URL(server.url).origin);
    page = watched.page;
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it("chats with echo: the reply appears in the conversation log, and the drawing names the graph's nodes", async () => {
    await page.goto(`${server.url}/inspector`);
    await page.getByRole("navigation", { name: "Panes" }).waitFor();
    for (const name of ["Graphs", "Threads", "Runs", "A2A", "MCP", "Store"])
      await expect(page.getByRole("link", { name, exact: true }).count()).resolves.toBe(1);
    await page.getByRole("navigation", { name: "Assistants" }).getByRole("link", { name: "echo", exact: true }).click();
    const drawing = page.getByRole("img", { name: "Graph of echo" });
    await drawing.waitFor();
    expect(await drawing.locator("[data-node]").evaluateAll((nodes) => nodes.map((n) => n.getAttribute("aria-label")))).toEqual(
      expect.arrayContaining(["__start__", "echo", "__end__"]),
    );
    await page.getByRole("textbox", { name: "Message" }).fill("hello inspector");
    await page.getByRole("button", { name: "Send" }).click();
    const log = page.getByRole("log", { name: "Conversation" });
    await log.getByText("echo: hello inspector").waitFor();
    expect(await log.innerText()).toMatch(/human:\s*hello inspector\b[\s\S]*ai:\s*echo: hello inspector/);
    await page.getByRole("button", { name: "Send" }).and(page.locator(":enabled")).waitFor();
  });

  it("edits a human message: the conversation branches from the checkpoint before it", async () => {
    const log = page.getByRole("log", { name: "Conversation" });
    await log.getByRole("button", { name: "Edit message 1" }).click();
    await log.getByRole("textbox", { name: "Edited message" }).fill("edited hello");
    await log.getByRole("button", { name: "Send edit" }).click();
    await log.getByText("echo: edited hello").waitFor();
    await expect.poll(() => log.getByText("echo: hello inspector").count()).toBe(0);
    await page.getByRole("button", { name: "Send" }).and(page.locator(":enabled")).waitFor();
  });

  it("chat mode: tool calls, the tool's answer, and a reply streamed token by token", async () => {
    await page.getByRole("navigation", { name: "Assistants" }).getByRole("link", { name: "assistant", exact: true }).click();
    await page.getByRole("img", { name: "Graph of assistant" }).waitFor();
    await page.getByRole("textbox", { name: "Message" }).fill("weather");
    await page.getByRole("button", { name: "Send" }).click();
    const log = page.getByRole("log", { name: "Conversation" });
    await log.getByRole("list", { name: "Tool calls" }).getByText('lookup({"q":"weather"})').waitFor();
    await log.getByText("found 3 notes about weather").waitFor();
    await log.getByText("Streamed answer: found 3 notes about weather.").waitFor();
    // The reply came as message chunks (messages-tuple) before the final values.
    const events = await page.getByRole("log", { name: "Events" }).innerText();
    expect(events.match(/^messages .*"tool_call_chunks"/gm)?.length ?? 0).toBeGreaterThan(3);
    await page.getByRole("button", { name: "Send" }).and(page.locator(":enabled")).waitFor();
    await screenshot(page, "graphs");
    await page.getByRole("navigation", { name: "Assistants" }).getByRole("link", { name: "echo", exact: true }).click();
  });

  it("creates an assistant, edits its config (a new version), and runs it from the Runs pane", async () => {
    const create = page.getByRole("form", { name: "Create an assistant" });
    await create.getByRole("combobox", { name: "Graph" }).selectOption("echo");
    await create.getByRole("textbox", { name: "Name" }).fill("echo-configured");
    await create.getByRole("textbox", { name: "Config (JSON)" }).fill('{"configurable": {"tone": "dry"}}');
    await create.getByRole("button", { name: "Create assistant" }).click();
    await page.getByRole("heading", { level: 2, name: /^echo-configured/ }).waitFor();
    await page.getByText("Config", { exact: true }).click();
    const config = page.getByRole("form", { name: "Configuration" });
    expect(await config.getByRole("textbox", { name: "Config (JSON)" }).inputValue()).toContain('"tone": "dry"');
    await config.getByRole("textbox", { name: "Config (JSON)" }).fill('{"configurable": {"tone": "warm"}}');
    await config.getByRole("button", { name: "Save config" }).click();
    await page.getByRole("heading", { level: 2, name: /version 2/ }).waitFor();

    await page.getByRole("link", { name: "Runs", exact: true }).click();
    expect(await page.getByRole("combobox", { name: "Assistant" }).inputValue()).toMatch(/^[0-9a-f-]{36}$/);
    await page.getByRole("textbox", { name: "Message" }).fill("from the runs pane");
    await page.getByRole("button", { name: "Send" }).click();
    await page.getByRole("log", { name: "Conversation" }).getByText("echo: from the runs pane").waitFor();
    await page.getByRole("button", { name: "Refresh runs" }).click();
    await page.getByRole("table", { name: "Runs" }).getByRole("row").filter({ hasText: "success" }).first().waitFor();
    await page.getByRole("link", { name: "Graphs", exact: true }).click();
    await page.getByRole("navigation", { name: "Assistants" }).getByRole("link", { name: "echo", exact: true }).click();
  });

  it("stops at a breakpoint before a node and continues from it", async () => {
    await page.getByText("Run options: stream modes and breakpoints").click();
    await page.getByRole("checkbox", { name: "Before echo" }).check();
    await page.getByRole("textbox", { name: "Message" }).fill("step by step");
    await page.getByRole("button", { name: "Send" }).click();
    const paused = page.getByRole("region", { name: "Breakpoint" });
    await paused.getByText("Paused before echo").waitFor();
    await page.getByRole("checkbox", { name: "Before echo" }).uncheck();
    await paused.getByRole("button", { name: "Continue" }).click();
    await page.getByRole("log", { name: "Conversation" }).getByText("echo: step by step").waitFor();
    await expect.poll(() => page.getByRole("region", { name: "Breakpoint" }).count()).toBe(0);
  });

  it("shows the remote A2A call a relay made: the agent, its task and the task's state", async () => {
    await page.getByRole("navigation", { name: "Assistants" }).getByRole("link", { name: "relay", exact: true }).click();
    await page.getByRole("img", { name: "Graph of relay" }).waitFor();
    await page.getByRole("textbox", { name: "Message" }).fill("hello relay");
    await page.getByRole("button", { name: "Send" }).click();
    await page.getByRole("log", { name: "Conversation" }).getByText("echo: hello relay").waitFor();
    const calls = page.getByRole("region", { name: "Remote agent calls" });
    await calls.getByRole("cell", { name: "completed" }).waitFor();
    const row = (await calls.getByRole("row").allInnerTexts()).at(-1)!;
    expect(row).toMatch(/^echo\s+[0-9a-f]{8}\s+completed\s+[0-9a-f]{8}$/);
    await page.getByRole("button", { name: "Send" }).and(page.locator(":enabled")).waitFor();
  });

  it("runs the approval graph to its interrupt and resumes it with a value", async () => {
    await page.getByRole("navigation", { name: "Assistants" }).getByRole("link", { name: "approval", exact: true }).click();
    await page.getByRole("img", { name: "Graph of approval" }).waitFor();
    await page.getByRole("textbox", { name: "request" }).fill("deploy v2");
    await page.getByRole("button", { name: "Send" }).click();
    const interrupt = page.getByRole("region", { name: "Interrupt" });
    await interrupt.getByText('Approve \\"deploy v2\\"?').waitFor();
    await interrupt.getByRole("textbox", { name: "Resume value" }).fill("approved");
    await screenshot(page, "runs-interrupt");
    await interrupt.getByRole("button", { name: "Resume" }).click();
    await page.getByRole("region", { name: "Values" }).getByText('"decision": "approved"').waitFor();
    await expect.poll(() => page.getByRole("region", { name: "Interrupt" }).count()).toBe(0);
  });

  it("shows the echo thread's checkpoints and forks a run from the first", async () => {
    await page.getByRole("navigation", { name: "Assistants" }).getByRole("link", { name: "echo", exact: true }).click();
    const threadId = (await page.getByRole("region", { name: "Run" }).getByRole("link").first().textContent())!.trim();
    expect(threadId).toMatch(/^[0-9a-f-]{36}$/);
    await page.getByRole("link", { name: "Threads", exact: true }).click();
    await page.getByRole("link", { name: threadId }).click();
    const checkpoints = page.getByRole("list", { name: "Checkpoints" }).getByRole("listitem");
    await checkpoints.nth(1).waitFor();
    const before = await checkpoints.count();
    expect(before).toBeGreaterThanOrEqual(2);
    await checkpoints.first().getByRole("button", { name: /^Fork/ }).click();
    await page
      .getByRole("status")
      .filter({ hasText: /Forked from checkpoint .* ended success/ })
      .waitFor();
    // The fork's run added its own checkpoints to the thread's history.
    await expect.poll(() => checkpoints.count()).toBeGreaterThan(before);
    await screenshot(page, "threads");

    // Edit the state: a new checkpoint, with the values written.
    const forked = await checkpoints.count();
    await page.getByRole("textbox", { name: "State values (JSON)" }).fill('{"messages": [{"role": "user", "content": "written by hand"}]}');
    await page.getByRole("textbox", { name: "As node" }).fill("echo");
    await page.getByRole("button", { name: "Update state" }).click();
    await page.getByRole("status").filter({ hasText: "State updated" }).waitFor();
    await expect.poll(() => checkpoints.count()).toBe(forked + 1);
    await page.getByText("Current values").click();
    await page.getByLabel("Thread values").getByText("written by hand").waitFor();
  });

  it("copies a thread, prunes the copy's history to its latest checkpoint, and deletes it", async () => {
    const heading = page.getByRole("heading", { level: 2, name: /^Thread / });
    const original = (await heading.textContent())!.replace("Thread ", "");
    await page.getByRole("button", { name: "Copy thread" }).click();
    await expect.poll(async () => (await heading.textContent())!.replace("Thread ", "")).not.toBe(original);
    const copy = (await heading.textContent())!.replace("Thread ", "");
    const checkpoints = page.getByRole("list", { name: "Checkpoints" }).getByRole("listitem");
    await expect.poll(() => checkpoints.count()).toBeGreaterThan(1);
    await page.getByRole("button", { name: "Prune history" }).click();
    await page.getByRole("status").filter({ hasText: "Pruned" }).waitFor();
    await expect.poll(() => checkpoints.count()).toBe(1);
    page.once("dialog", (dialog) => void dialog.accept());
    await page.getByRole("button", { name: "Delete thread" }).click();
    await page.getByRole("heading", { level: 2, name: "Threads" }).waitFor();
    await page.getByRole("link", { name: original }).waitFor();
    await expect(page.getByRole("link", { name: copy }).count()).resolves.toBe(0);
  });

  it("sends A2A messages: each task COMPLETED with its own artifact, the first unchanged after a second turn", async () => {
    await page.getByRole("link", { name: "A2A", exact: true }).click();
    await page.getByRole("combobox", { name: "Assistant" }).selectOption({ label: "echo (echo)" });
    await page.getByRole("list", { name: "Card checks" }).waitFor();
    await page.getByRole("textbox", { name: "Message" }).fill("first turn");
    await page.getByRole("button", { name: "Send" }).click();
    const tasks = page.getByRole("table", { name: "Tasks" });
    const first = tasks.getByRole("row").filter({ hasText: "echo: first turn" });
    await first.waitFor();
    const firstText = await first.innerText();
    expect(firstText).toContain("COMPLETED");
    const firstId = firstText.match(/[0-9a-f-]{36}/)![0];

    await page.getByRole("textbox", { name: "Message" }).fill("second turn");
    await page.getByRole("button", { name: "Send" }).click();
    await tasks.getByRole("row").filter({ hasText: "echo: second turn" }).waitFor();
    const again = tasks.getByRole("row").filter({ hasText: firstId });
    expect(await again.innerText()).toContain("COMPLETED");
    expect(await again.innerText()).toContain("echo: first turn");
    expect(await again.innerText()).not.toContain("echo: second turn");
    await expect(
      page
        .getByRole("status")
        .filter({ hasText: /All \d+ checks pass/ })
        .count(),
    ).resolves.toBe(1);
    await screenshot(page, "a2a");
  });

  it("draws conditional edges dashed and subgraphs folded, and marks the nodes a run went through", async () => {
    await page.goto(`${server.url}/inspector#/graphs/router`);
    const drawing = page.getByRole("img", { name: "Graph of router" });
    await drawing.waitFor();
    const nodes = () => drawing.locator("[data-node]").evaluateAll((list) => list.map((n) => n.getAttribute("aria-label")).sort());
    expect(await nodes()).toEqual(["__start__", "classify", "skip", "write"]);
    const edge = drawing.locator('[data-source="classify"][data-target="write"]');
    expect(await edge.getAttribute("class")).toBe("edge conditional");
    expect(await drawing.locator('[data-source="__start__"][data-target="classify"]').getAttribute("class")).toBe("edge");
    await page.getByRole("button", { name: "Unfold subgraphs" }).click();
    expect(await nodes()).toEqual(["__start__", "classify", "skip", "write:draft", "write:polish"]);
    await page.getByRole("button", { name: "Fold subgraphs" }).click();

    await page.getByRole("textbox", { name: "topic" }).fill("cats");
    await page.getByRole("button", { name: "Send" }).click();
    await page.getByRole("region", { name: "Values" }).getByText('"answer": "about cats, polished"').waitFor();
    await expect.poll(() => drawing.locator('[data-node="write"]').getAttribute("class")).toContain("visited");
    expect(await drawing.locator('[data-node="skip"]').getAttribute("class")).not.toContain("visited");
  });

  it("calls an MCP tool and shows its result", async () => {
    await page.getByRole("link", { name: "MCP", exact: true }).click();
    await page.getByRole("button", { name: "echo", exact: true }).click();
    await page.getByRole("textbox", { name: "Arguments (JSON)" }).fill('{"messages":[{"role":"user","content":"over mcp"}]}');
    await page.getByRole("button", { name: "Call" }).click();
    await page.getByRole("region", { name: "Result" }).getByText("echo: over mcp", { exact: true }).waitFor();
    await page
      .getByRole("list", { name: "Progress" })
      .getByText(/Step done: echo/)
      .waitFor();
    await screenshot(page, "mcp");
  });

  it("shows bad input as an error in the page, not a blank screen", async () => {
    await page.getByRole("link", { name: "MCP", exact: true }).click();
    await page.getByRole("button", { name: "echo", exact: true }).click();
    await page.getByRole("textbox", { name: "Arguments (JSON)" }).fill("{not json");
    await page.getByRole("button", { name: "Call" }).click();
    await page
      .getByRole("alert")
      .getByText(/Arguments \(JSON\) is not valid JSON/)
      .waitFor();
    await page.goto(`${server.url}/inspector#/threads/00000000-0000-0000-0000-000000000000`);
    await page.getByRole("alert").getByText(/404/).waitFor();
  });

  it("browses the store and crons", async () => {
    await page.goto(`${server.url}/inspector#/store`);
    await page.getByRole("textbox", { name: "Namespace", exact: true }).fill("notes.alice");
    await page.getByRole("textbox", { name: "Key" }).fill("greeting");
    await page.getByRole("textbox", { name: "Value (JSON)" }).fill('{"text": "hi"}');
    await page.getByRole("button", { name: "Put item" }).click();
    await page.getByRole("table", { name: "Items" }).getByRole("row").filter({ hasText: "greeting" }).waitFor();
    await page.getByRole("list", { name: "Namespaces" }).getByRole("button", { name: "notes.alice" }).waitFor();
    await screenshot(page, "store");

    await page.getByRole("link", { name: "Crons", exact: true }).click();
    await page.getByRole("textbox", { name: "Schedule" }).fill("0 3 * * *");
    await page.getByRole("button", { name: "Create cron" }).click();
    const row = page.getByRole("table", { name: "Crons" }).getByRole("row").filter({ hasText: "0 3 * * *" });
    await row.waitFor();
    await screenshot(page, "crons");
    await row.getByRole("button", { name: /^Delete cron/ }).click();
    await expect.poll(() => row.count()).toBe(0);
  });

  it("made no request to another origin and logged no error", () => {
    expect(watched.foreign()).toEqual([]);
    // The 404 of the unknown thread above is the browser's own report of a failed fetch, nothing else.
    expect(watched.problems().filter((p) => !/404 \(Not Found\)/.test(p))).toEqual([]);
  });
});
