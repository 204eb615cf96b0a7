import { existsSync, readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import { createRouter } from "../http/router.js";

/**
 * GET /docs: an interactive API reference (Swagger UI) rendered from /openapi.json. Every script and
 * stylesheet comes from this server (the swagger-ui-dist package, read from disk), so the page works
 * offline and the browser talks to no third party: the UI's online validator badge is turned off.
 */

/**
 * Where the Swagger UI files are: a `swagger-ui/` folder beside this module in the published package
 * (its build copies the files there, so installing the server does not install swagger-ui-dist and
 * the install script of its telemetry dependency), else the swagger-ui-dist package of a checkout.
 */
function swaggerUi(): { dir: string; version: string } {
  const copied = fileURLToPath(new URL("./swagger-ui/", import.meta.url));
  const dir = existsSync(join(copied, "package.json"))
    ? copied
    : dirname(createRequire(import.meta.url).resolve("swagger-ui-dist/package.json"));
  return { dir, version: (JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { version: string }).version };
}

const { dir: distDir, version: distVersion } = swaggerUi();

const CONTENT_TYPES: Record<string, string> = {
  ".css": "text/css; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".png": "image/png",
};

/** Files of swagger-ui-dist the page uses, plus our own initializer (an external script, not inline). */
const PACKAGE_ASSETS = ["swagger-ui.css", "swagger-ui-bundle.js", "favicon-32x32.png", "favicon-16x16.png"] as const;
const INIT_SCRIPT = "docs-init.js";
const ASSETS = [...PACKAGE_ASSETS, INIT_SCRIPT] as const;

// The spec URL is resolved against this script's own URL (/docs/assets/docs-init.js -> /openapi.json),
// so the page keeps working when the server sits under a path prefix behind a proxy.
const initScript = `(() => {
  const specUrl = new URL("../../openapi.json", document.currentScript.src).href;
  window.addEventListener("load", () => {
    window.ui = SwaggerUIBundle({
      url: specUrl,
      dom_id: "#swagger-ui",
      deepLinking: true,
      validatorUrl: null,
      presets: [SwaggerUIBundle.presets.apis],
      layout: "BaseLayout",
    });
  });
})();
`;

const page = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>agent-server API reference</title>
  <link rel="icon" type="image/png" sizes="32x32" href="docs/assets/favicon-32x32.png">
  <link rel="icon" type="image/png" sizes="16x16" href="docs/assets/favicon-16x16.png">
  <link rel="stylesheet" href="docs/assets/swagger-ui.css">
  <style>body { margin: 0; }</style>
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="docs/assets/swagger-ui-bundle.js"></script>
  <script src="docs/assets/${INIT_SCRIPT}"></script>
</body>
</html>
`;

function isAsset(name: string): name is (typeof ASSETS)[number] {
  return (ASSETS as readonly string[]).includes(name);
}

/** Read once, then served from memory: the files never change while the server runs. */
const cache = new Map<string, Promise<Uint8Array>>();

function assetBytes(name: (typeof ASSETS)[number]): Promise<Uint8Array> {
  let bytes = cache.get(name);
  if (!bytes) {
    bytes = name === INIT_SCRIPT ? Promise.resolve(new TextEncoder().encode(initScript)) : readFile(join(distDir, name));
    bytes.catch(() => cache.delete(name));
    cache.set(name, bytes);
  }
  return bytes;
}

/** Assets are only ever replaced with a new package version, which the ETag names. */
function serveAsset(c: Context, name: (typeof ASSETS)[number], bytes: Uint8Array): Response {
  const etag = `"swagger-ui-dist@${distVersion}/${name}"`;
  const headers = {
    "Content-Type": CONTENT_TYPES[name.slice(name.lastIndexOf("."))] ?? "application/octet-stream",
    "Cache-Control": "public, max-age=86400",
    ETag: etag,
    "X-Content-Type-Options": "nosniff",
  };
  if (c.req.header("If-None-Match") === etag) return c.body(null, 304, headers);
  return c.body(bytes as Uint8Array<ArrayBuffer>, 200, headers);
}

export const docs = createRouter()
  .openapi(
    createRoute({
      method: "get",
      path: "/docs",
      hide: true,
      responses: { 200: { description: "The API reference page (HTML)" } },
    }),
    (c) => {
      // The page itself is tiny and names no versioned file: always revalidate it.
      c.header("Cache-Control", "no-cache");
      c.header("X-Content-Type-Options", "nosniff");
      return c.html(page);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/docs/assets/{file}",
      hide: true,
      request: { params: z.object({ file: z.string() }) },
      responses: { 200: { description: "A static asset of the API reference page" }, 404: { description: "No such asset" } },
    }),
    async (c) => {
      const file = c.req.valid("param").file;
      if (!isAsset(file)) throw new HTTPException(404, { message: `No docs asset "${file}"` });
      return serveAsset(c, file, await assetBytes(file));
    },
  );
