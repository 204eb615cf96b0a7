import { createRoute, z } from "@hono/zod-openapi";
import { HTTPException } from "hono/http-exception";
import { createRouter } from "../http/router.js";
import { ErrorDetail, jsonBody, jsonResponse } from "../http/route-helpers.js";
import { uiGlobalName, type UiAsset, type UiBundles } from "./bundle.js";

const UiComponentRequest = z
  .object({ name: z.string().describe("The component's key in the default export of the agent's ui file.") })
  .openapi("UiComponentRequest");

/**
 * Generative UI (langgraph.json `ui`), as the official server serves it to `LoadExternalComponent` of
 * `@langchain/langgraph-sdk/react-ui`:
 * - `POST /ui/{agent}` `{ name }` answers an HTML snippet: a stylesheet link per CSS file, and the script
 *   whose onload renders component `name` into the shadow root whose id the client substitutes for
 *   `{{shadowRootId}}`. URLs are absolute, on the Host the request came to: `http:` for loopback hosts,
 *   protocol-relative otherwise (so a page served over https behind a proxy loads them over https).
 * - `GET /ui/{agent}/{file}` serves the bundled files.
 * Both sit behind the auth middleware (authenticated, no resource authorization), as on the official server.
 */
export function uiRoutes(bundles: UiBundles) {
  const assetsOf = (agent: string): readonly UiAsset[] => {
    const assets = bundles.get(agent);
    if (!assets) throw new HTTPException(404, { message: `UI not found for agent "${agent}"` });
    return assets;
  };

  return createRouter()
    .openapi(
      createRoute({
        method: "post",
        path: "/ui/{agent}",
        tags: ["UI"],
        summary: "HTML that loads one generative UI component of an agent",
        request: { params: z.object({ agent: z.string() }), body: jsonBody(UiComponentRequest) },
        responses: {
          200: { description: "Link and script tags", content: { "text/html": { schema: z.string() } } },
          404: jsonResponse(ErrorDetail, "The agent has no ui in langgraph.json"),
          422: jsonResponse(ErrorDetail, "Invalid body"),
        },
      }),
      (c) => {
        const { agent } = c.req.valid("param");
        const { name } = c.req.valid("json");
        const assets = assetsOf(agent);
        const host = c.req.header("host") || new URL(c.req.url).host;
        const base = `${isLoopback(host) ? "http:" : ""}//${host}/ui/${encodeURIComponent(agent)}`;
        const tags: string[] = [];
        for (const asset of assets.filter((a) => a.name.endsWith(".css"))) {
          tags.push(`<link rel="stylesheet" href="${attribute(`${base}/${asset.name}`)}" />`);
        }
        const script = assets.find((a) => a.name.endsWith(".js"));
        if (script) {
          // The onload attribute is single-quoted, so the JSON string of the name needs no escaping of `"`.
          const onload = `${uiGlobalName(agent)}.render(${JSON.stringify(name)}, "{{shadowRootId}}")`;
          tags.push(
            `<script src="${attribute(`${base}/${script.name}`)}" onload='${onload.replace(/&/g, "&amp;").replace(/'/g, "&#39;")}'></script>`,
          );
        }
        return c.body(tags.join("\n"), 200, { "Content-Type": "text/html; charset=utf-8" });
      },
    )
    .openapi(
      createRoute({
        method: "get",
        path: "/ui/{agent}/{file}",
        tags: ["UI"],
        summary: "A bundled file of an agent's generative UI",
        request: { params: z.object({ agent: z.string(), file: z.string() }) },
        responses: {
          200: { description: "The file (JavaScript or CSS)" },
          404: jsonResponse(ErrorDetail, "No such agent or file"),
        },
      }),
      (c) => {
        const { agent, file } = c.req.valid("param");
        const asset = assetsOf(agent).find((a) => a.name === file);
        if (!asset) throw new HTTPException(404, { message: `UI file "${file}" not found for agent "${agent}"` });
        return c.body(asset.contents as Uint8Array<ArrayBuffer>, 200, {
          "Content-Type": asset.contentType,
          // Bundled anew on every start (and dev reload) under the same name: always revalidate.
          "Cache-Control": "no-cache",
          "X-Content-Type-Options": "nosniff",
        });
      },
    );
}

function isLoopback(host: string): boolean {
  const hostname = host.replace(/:\d+$/, "");
  return hostname === "localhost" || hostname === "127.0.0.1" || hostname === "[::1]";
}

/** For a double-quoted HTML attribute. */
function attribute(value: string): string {
  return value.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");
}
