import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@langchain/langgraph-sdk";
import { Auth, HTTPException } from "@langchain/langgraph-sdk/auth";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createMemoryStorage } from "@agent-server/storage-memory";
import { startTestServer, type TestServer } from "../../test/support/index.js";
import { bundleUi, type UiBundles } from "./bundle.js";

let project: string;
let bundles: UiBundles;
beforeAll(async () => {
  project = mkdtempSync(join(tmpdir(), "agent-server-ui-routes-"));
  writeFileSync(join(project, "ui.css"), ".weather { color: teal; }\n");
  writeFileSync(
    join(project, "ui.tsx"),
    `import "./ui.css";\nexport default { weather: (p: { city: string }) => <b className="weather">{p.city}</b> };\n`,
  );
  bundles = await bundleUi({ "weather-agent": "./ui.tsx" }, { cwd: project });
});
afterAll(() => rmSync(project, { recursive: true, force: true }));

/** A POST with a Host header of our choosing (fetch would send the URL's own). */
function postWithHost(url: string, host: string, body: unknown): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: "POST", headers: { host, "content-type": "application/json" } }, (res) => {
      let text = "";
      res.on("data", (chunk) => (text += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on("error", reject);
    req.end(JSON.stringify(body));
  });
}

describe("generative UI routes", () => {
  let server: TestServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it("answers the SDK's getComponent with the stylesheet and the script that renders the component", async () => {
    server = await startTestServer(createMemoryStorage(), { app: { ui: bundles } });
    const html = await server.client["~ui"].getComponent("weather-agent", "weather");
    const base = `${server.url}/ui/weather-agent`;
    expect(html).toBe(
      `<link rel="stylesheet" href="${base}/entrypoint.css" />\n` +
        `<script src="${base}/entrypoint.js" onload='__LGUI_weather_agent.render("weather", "{{shadowRootId}}")'></script>`,
    );

    const script = await fetch(`${base}/entrypoint.js`);
    expect(script.status).toBe(200);
    expect(script.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(script.headers.get("cache-control")).toBe("no-cache");
    const js = await script.text();
    expect(js).toContain(`globalThis[Symbol.for("LGUI_REQUIRE")]`);
    expect(js).toBe(new TextDecoder().decode(bundles.get("weather-agent")!.find((a) => a.name === "entrypoint.js")!.contents));
    const css = await fetch(`${base}/entrypoint.css`);
    expect(css.headers.get("content-type")).toBe("text/css; charset=utf-8");
    expect(await css.text()).toContain("teal");
  });

  it("builds URLs on the request's Host: protocol-relative unless it is a loopback host; escapes what it embeds", async () => {
    server = await startTestServer(createMemoryStorage(), { app: { ui: bundles } });
    const proxied = await postWithHost(`${server.url}/ui/weather-agent`, "agents.example.com", { name: "weather" });
    expect(proxied.status).toBe(200);
    expect(proxied.text).toContain(`<script src="//agents.example.com/ui/weather-agent/entrypoint.js"`);
    expect(proxied.text).toContain(`<link rel="stylesheet" href="//agents.example.com/ui/weather-agent/entrypoint.css" />`);

    const odd = await fetch(`${server.url}/ui/weather-agent`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: `it's <b>&` }),
    });
    expect(await odd.text()).toContain(`onload='__LGUI_weather_agent.render("it&#39;s <b>&amp;", "{{shadowRootId}}")'`);
  });

  it("answers JSON errors for an unknown agent or file and for a body without a name", async () => {
    server = await startTestServer(createMemoryStorage(), { app: { ui: bundles } });
    const post = (agent: string, body: unknown) =>
      fetch(`${server!.url}/ui/${agent}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

    const unknown = await post("other-agent", { name: "weather" });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({ detail: 'UI not found for agent "other-agent"' });
    await expect(new Client({ apiUrl: server.url })["~ui"].getComponent("other-agent", "x")).rejects.toThrow(/404/);

    const noName = await post("weather-agent", { component: "weather" });
    expect(noName.status).toBe(422);
    expect(await noName.json()).toMatchObject({ detail: expect.stringMatching(/^name: /) });

    const file = await fetch(`${server.url}/ui/weather-agent/secrets.js`);
    expect(file.status).toBe(404);
    expect(await file.json()).toEqual({ detail: 'UI file "secrets.js" not found for agent "weather-agent"' });
    expect((await fetch(`${server.url}/ui/other-agent/entrypoint.js`)).status).toBe(404);
  });

  it("is not served when the project has no ui", async () => {
    server = await startTestServer(createMemoryStorage());
    const response = await fetch(`${server.url}/ui/weather-agent`, { method: "POST", body: JSON.stringify({ name: "weather" }) });
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ detail: "Not found: POST /ui/weather-agent" });
  });

  it("needs the credentials custom auth asks for, and no resource authorization (as on the official server)", async () => {
    const auth = new Auth()
      .authenticate(async (request: Request) => {
        if (request.headers.get("authorization") !== "Bearer ok") throw new HTTPException(401, { message: "who are you" });
        return "ok-user";
      })
      .on("*", () => false);
    server = await startTestServer(createMemoryStorage(), { app: { ui: bundles, auth } });
    const anonymous = await fetch(`${server.url}/ui/weather-agent/entrypoint.js`);
    expect(anonymous.status).toBe(401);
    const anonymousPost = await fetch(`${server.url}/ui/weather-agent`, { method: "POST", body: JSON.stringify({ name: "weather" }) });
    expect(anonymousPost.status).toBe(401);

    const user = new Client({ apiUrl: server.url, defaultHeaders: { authorization: "Bearer ok" } });
    expect(await user["~ui"].getComponent("weather-agent", "weather")).toContain("entrypoint.js");
    const script = await fetch(`${server.url}/ui/weather-agent/entrypoint.js`, { headers: { authorization: "Bearer ok" } });
    expect(script.status).toBe(200);
  });
});
