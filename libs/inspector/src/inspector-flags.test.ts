import { afterAll, describe, expect, it } from "vitest";
import { EXAMPLE_CONFIG, SERVE_INSPECTOR_CONFIG, startServer, type ServerProcess } from "../test/server-process.js";

/** Where /inspector is served: on in dev, opt-in in serve (flag or langgraph.json `http.inspector`), off switch. */
describe("/inspector on and off", () => {
  const started: ServerProcess[] = [];
  afterAll(async () => {
    await Promise.all(started.map((s) => s.stop()));
  });

  // Each starts its own server: concurrently, they take as long as one.
  it.concurrent.each([
    ["serve", "examples/langgraph.json", [], 404, EXAMPLE_CONFIG],
    ["serve", "examples/langgraph.json", ["--inspector"], 200, EXAMPLE_CONFIG],
    ["serve", "http.inspector: true", [], 200, SERVE_INSPECTOR_CONFIG],
    ["serve", "http.inspector: true", ["--no-inspector"], 404, SERVE_INSPECTOR_CONFIG],
    ["dev", "examples/langgraph.json", [], 200, EXAMPLE_CONFIG],
    ["dev", "examples/langgraph.json", ["--no-inspector"], 404, EXAMPLE_CONFIG],
  ] as const)("%s with %s, flags %j: /inspector answers %i", async (command, _label, flags, status, config) => {
    const server = await startServer(command, config, ...flags);
    started.push(server);
    const page = await fetch(`${server.url}/inspector`);
    expect(page.status).toBe(status);
    const script = await fetch(`${server.url}/inspector/assets/app.js`);
    expect(script.status).toBe(status);
    if (status === 200) expect(server.output()).toContain(`${server.url}/inspector`);
    else expect(server.output()).not.toContain("/inspector");
    // The API is there either way.
    expect((await fetch(`${server.url}/ok`)).status).toBe(200);
  });
});
