import { afterAll, describe, expect, it } from "vitest";
import { EXAMPLE_CONFIG, SERVE_INSPECTOR_CONFIG, startServer, type ServerProcess } from "./testing/server-process.js";

/** Where /inspector is served: on in dev, opt-in in serve (flag or langgraph.json `http.inspector`), off switch. */
describe("/inspector on and off", () => {
  const started: ServerProcess[] = [];
  afterAll(async () => {
    await Promise.all(started.map((s) => s.stop()));
  });

  // Each starts its own server: concurrently, they take as long as one.
  it.concurrent.each([
    ["serve", "examples/langgraph.json", EXAMPLE_CONFIG, [], 404],
    ["serve", "examples/langgraph.json", EXAMPLE_CONFIG, ["--inspector"], 200],
    ["serve", "http.inspector: true", SERVE_INSPECTOR_CONFIG, [], 200],
    ["serve", "http.inspector: true", SERVE_INSPECTOR_CONFIG, ["--no-inspector"], 404],
    ["dev", "examples/langgraph.json", EXAMPLE_CONFIG, [], 200],
    ["dev", "examples/langgraph.json", EXAMPLE_CONFIG, ["--no-inspector"], 404],
  ] as const)("%s (%s) %j -> %i", async (command, _label, config, flags, status) => {
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
