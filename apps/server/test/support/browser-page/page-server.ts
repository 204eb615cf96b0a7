import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const ENTRY = fileURLToPath(new URL("./cross-origin-page.ts", import.meta.url));

/** cross-origin-page.ts and the two SDKs it imports, bundled for the browser as a frontend build would. */
export async function bundlePageScript(): Promise<string> {
  const result = await build({
    entryPoints: [ENTRY],
    bundle: true,
    format: "esm",
    platform: "browser",
    target: "chrome120",
    write: false,
    logLevel: "silent",
  });
  return result.outputFiles[0]!.text;
}

const USE_STREAM_ENTRY = fileURLToPath(new URL("./use-stream-page.tsx", import.meta.url));

/**
 * use-stream-page.tsx with React and @langchain/react, bundled as a frontend's production build would:
 * JSX by esbuild, and NODE_ENV defined, which React's entry reads and a browser has no `process` for.
 */
export async function bundleUseStreamPage(): Promise<string> {
  const result = await build({
    entryPoints: [USE_STREAM_ENTRY],
    bundle: true,
    format: "esm",
    platform: "browser",
    target: "chrome120",
    jsx: "automatic",
    define: { "process.env.NODE_ENV": '"production"' },
    write: false,
    logLevel: "silent",
  });
  return result.outputFiles[0]!.text;
}

export interface PageServer {
  /** The page's origin, e.g. http://127.0.0.1:41234 (another port than the agent server's: another origin). */
  url: string;
  close(): Promise<void>;
}

/** Serves `/` (an empty page loading the bundle) and `/page.js` on a loopback port of its own. */
export async function startPageServer(script: string, host = "127.0.0.1"): Promise<PageServer> {
  const html =
    `<!doctype html><html><head><meta charset="utf-8"><title>cross-origin page</title>` +
    `<script type="module" src="/page.js"></script></head><body></body></html>`;
  const server: Server = createServer((request, response) => {
    if (request.url === "/") {
      response.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(html);
    } else if (request.url === "/page.js") {
      response.writeHead(200, { "content-type": "text/javascript; charset=utf-8" }).end(script);
    } else {
      response.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
