import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, extname, join } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * `/inspector`: one page, served by the server itself, that shows and drives the server's graphs, threads,
 * runs, A2A tasks, MCP tools, store and crons through the server's own HTTP APIs. Every script and style
 * comes from here: our plain ES modules (`assets/`) and, through an import map, the ES module builds of
 * preact, htm and @dagrejs/dagre (read from their packages at start, or from the copies the published
 * package carries beside its bundle). No build step, no other origin, works offline.
 *
 * The page and its files are public (like `/docs`): they hold no data. Every API call the page makes
 * carries the credentials its user entered, and the API's own auth decides.
 */
export const INSPECTOR_PATH = "/inspector";

/** The ES module files the page imports by bare name, and where each is inside its npm package. */
const VENDOR = [
  { file: "preact.mjs", pkg: "preact", path: "dist/preact.mjs", specifier: "preact" },
  { file: "preact-hooks.mjs", pkg: "preact", path: "hooks/dist/hooks.mjs", specifier: "preact/hooks" },
  { file: "htm.mjs", pkg: "htm", path: "dist/htm.mjs", specifier: "htm" },
  { file: "dagre.mjs", pkg: "@dagrejs/dagre", path: "dist/dagre.esm.js", specifier: "@dagrejs/dagre" },
] as const;

/** For the published package's build (tools/package): which files to copy into `inspector/vendor/`. */
export function inspectorVendorFiles(): Array<{ file: string; source: string; pkg: string; packageDir: string }> {
  const from = fileURLToPath(new URL(".", import.meta.url));
  return VENDOR.map((v) => {
    const packageDir = findPackageDir(v.pkg, from);
    return { file: v.file, source: join(packageDir, v.path), pkg: v.pkg, packageDir };
  });
}

/** The page's own files (index.html, styles, modules): in a checkout, `assets/` beside `src/`. */
export function inspectorAssetsDir(): string {
  return fileURLToPath(new URL("../assets/", import.meta.url));
}

const CONTENT_TYPES: Record<string, string> = {
  ".css": "text/css; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".svg": "image/svg+xml",
  ".html": "text/html; charset=utf-8",
};

interface Files {
  page: string;
  /** `assets/<name>` and `vendor/<name>` -> bytes. */
  files: Map<string, Uint8Array>;
  etag: string;
}

/** Finds `node_modules/<name>` walking up from `from` (workspaces hoist packages to the root). */
function findPackageDir(name: string, from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    const candidate = join(dir, "node_modules", name);
    if (existsSync(join(candidate, "package.json"))) return candidate;
    if (dirname(dir) === dir) throw new Error(`inspector: package ${name} not found (npm install it)`);
  }
}

/**
 * Reads every file once, at start: the packaged layout (`inspector/` beside the bundle, with `vendor/`)
 * when it exists, else the checkout's (`assets/` and node_modules). A missing file stops the start.
 */
function loadFiles(): Files {
  const packaged = fileURLToPath(new URL("./inspector/", import.meta.url));
  const assetsDir = existsSync(join(packaged, "index.html")) ? packaged : inspectorAssetsDir();
  const files = new Map<string, Uint8Array>();
  for (const name of readdirSync(assetsDir)) {
    if (name === "index.html" || ![".js", ".css", ".svg"].includes(extname(name))) continue;
    files.set(`assets/${name}`, readFileSync(join(assetsDir, name)));
  }
  if (assetsDir === packaged) {
    for (const v of VENDOR) files.set(`vendor/${v.file}`, readFileSync(join(packaged, "vendor", v.file)));
  } else {
    for (const v of inspectorVendorFiles()) files.set(`vendor/${v.file}`, readFileSync(v.source));
  }
  const imports = Object.fromEntries(VENDOR.map((v) => [v.specifier, `./inspector/vendor/${v.file}`]));
  const importMap = JSON.stringify({ imports }, null, 2);
  const page = readFileSync(join(assetsDir, "index.html"), "utf8").replace("<!--IMPORTMAP-->", importMap);
  // One tag for every file: they change together, only with a new server version (or a restart in dev).
  const hash = createHash("sha256");
  for (const [name, bytes] of files) hash.update(name).update(bytes);
  return { page, files, etag: `"inspector-${hash.digest("hex").slice(0, 16)}"` };
}

export interface Inspector {
  /** Answers requests under `/inspector`; anything else is `undefined` (the caller's app answers it). */
  fetch(request: Request): Response | undefined;
}

/** Reads the page's files (throws when one is missing) and returns the handler that serves them. */
export function createInspector(): Inspector {
  const { page, files, etag } = loadFiles();
  const common = { "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer" };
  const csp = [
    "default-src 'self'",
    `script-src 'self' 'sha256-${importMapHash(page)}'`,
    "style-src 'self'",
    "img-src 'self' data:",
    "connect-src 'self'",
    "frame-ancestors 'self'",
    "base-uri 'self'",
    "form-action 'self'",
  ].join("; ");
  return {
    fetch(request) {
      const { pathname } = new URL(request.url);
      if (pathname !== INSPECTOR_PATH && !pathname.startsWith(`${INSPECTOR_PATH}/`)) return undefined;
      if (request.method !== "GET" && request.method !== "HEAD") {
        return Response.json(
          { detail: `Method ${request.method} not allowed on ${pathname}` },
          { status: 405, headers: { Allow: "GET, HEAD" } },
        );
      }
      if (pathname === INSPECTOR_PATH) {
        return new Response(request.method === "HEAD" ? null : page, {
          headers: {
            ...common,
            "Content-Type": "text/html; charset=utf-8",
            "Cache-Control": "no-cache",
            // Only this origin: the page may load nothing from, and send nothing to, any other.
            "Content-Security-Policy": csp,
          },
        });
      }
      if (pathname === `${INSPECTOR_PATH}/`) return Response.redirect(new URL(INSPECTOR_PATH, request.url).href, 308);
      const name = pathname.slice(INSPECTOR_PATH.length + 1);
      const bytes = files.get(name);
      if (!bytes) return Response.json({ detail: `No inspector file "${name}"` }, { status: 404 });
      const headers = {
        ...common,
        "Content-Type": CONTENT_TYPES[extname(name)] ?? "application/octet-stream",
        "Cache-Control": "no-cache",
        ETag: etag,
      };
      if (request.headers.get("If-None-Match") === etag) return new Response(null, { status: 304, headers });
      return new Response(request.method === "HEAD" ? null : (bytes as Uint8Array<ArrayBuffer>), { headers });
    },
  };
}

/** The CSP hash of the page's inline import map (its only inline script: an import map cannot be a file). */
function importMapHash(page: string): string {
  const match = page.match(/<script type="importmap">([\s\S]*?)<\/script>/);
  return match ? createHash("sha256").update(match[1]!).digest("base64") : "";
}

/**
 * Whether `/inspector` is served: `--inspector` / `--no-inspector` win, then langgraph.json
 * `http.inspector`, then the command's default (on in `dev`, off in `serve`).
 */
export function inspectorEnabled(flag: boolean | undefined, configured: unknown, dev: boolean): boolean {
  if (flag !== undefined) return flag;
  if (typeof configured === "boolean") return configured;
  return dev;
}

/** Wraps a server's fetch handler: `/inspector` requests go to the inspector, all others to `next`. */
export function withInspector<E>(
  inspector: Inspector | undefined,
  next: (request: Request, env?: E) => Response | Promise<Response>,
): (request: Request, env?: E) => Response | Promise<Response> {
  if (!inspector) return next;
  return (request, env) => inspector.fetch(request) ?? next(request, env);
}
