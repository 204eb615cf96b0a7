import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createInspector, inspectorAssetsDir, inspectorEnabled, withInspector } from "./index.js";

const inspector = createInspector();
const get = (path: string, init?: RequestInit) => inspector.fetch(new Request(`http://localhost${path}`, init));

describe("the inspector's files", () => {
  it("serves the page with an import map of the vendored ES modules and a same-origin-only CSP", async () => {
    const page = get("/inspector")!;
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
    const csp = page.headers.get("content-security-policy")!;
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("connect-src 'self'");
    const html = await page.text();
    const map = JSON.parse(html.match(/<script type="importmap">([\s\S]*?)<\/script>/)![1]!) as { imports: Record<string, string> };
    expect(Object.keys(map.imports).sort()).toEqual(["@dagrejs/dagre", "htm", "preact", "preact/hooks"]);
    for (const url of Object.values(map.imports)) {
      const file = get(`/${url.replace(/^\.\//, "")}`)!;
      expect(file.status, url).toBe(200);
      expect(file.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    }
    expect(html).not.toMatch(/https?:\/\//);
  });

  it("serves every module of assets/, none naming another origin, and answers 404 for others", async () => {
    for (const name of readdirSync(inspectorAssetsDir()).filter((n) => n.endsWith(".js") || n.endsWith(".css"))) {
      const response = get(`/inspector/assets/${name}`)!;
      expect(response.status, name).toBe(200);
      const text = await response.text();
      expect(text).toBe(readFileSync(join(inspectorAssetsDir(), name), "utf8"));
      expect(text, name).not.toMatch(/https?:\/\//);
    }
    expect(get("/inspector/assets/..%2Fsrc%2Findex.ts")!.status).toBe(404);
    expect(get("/inspector/assets/nope.js")!.status).toBe(404);
    expect(get("/inspector/", {})!.status).toBe(308);
    expect(get("/inspector", { method: "POST" })!.status).toBe(405);
    const etag = get("/inspector/assets/app.js")!.headers.get("etag")!;
    expect(get("/inspector/assets/app.js", { headers: { "If-None-Match": etag } })!.status).toBe(304);
  });

  it("leaves every other path to the API", async () => {
    expect(get("/assistants/search")).toBeUndefined();
    expect(get("/inspectors")).toBeUndefined();
    const fetch = withInspector(inspector, () => new Response("api"));
    expect(await (await fetch(new Request("http://localhost/ok"))).text()).toBe("api");
    expect((await fetch(new Request("http://localhost/inspector"))).headers.get("content-type")).toMatch(/^text\/html/);
    expect(withInspector(undefined, fetch)).toBe(fetch);
  });

  it("is on in dev and off in serve unless the flag or langgraph.json says otherwise", () => {
    expect(inspectorEnabled(undefined, undefined, true)).toBe(true);
    expect(inspectorEnabled(undefined, undefined, false)).toBe(false);
    expect(inspectorEnabled(undefined, true, false)).toBe(true);
    expect(inspectorEnabled(undefined, false, true)).toBe(false);
    expect(inspectorEnabled(false, true, true)).toBe(false);
    expect(inspectorEnabled(true, false, false)).toBe(true);
  });
});
