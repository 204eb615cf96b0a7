import type { AddressInfo } from "node:net";
import { serve, type ServerType } from "@hono/node-server";
import { WebSocketServer } from "ws";

export interface RunningServer {
  url: string;
  close(): Promise<void>;
}

/**
 * Serves a fetch handler on host:port (port 0 picks a free one), WebSocket upgrades included (the thread
 * streaming protocol's socket): the handler gets node-server's bindings as its second argument.
 */
export function listen(
  fetch: (request: Request, env?: unknown) => Response | Promise<Response>,
  options: { host: string; port: number },
): Promise<RunningServer> {
  return new Promise((resolve, reject) => {
    let server: ServerType;
    try {
      const websocket = { server: new WebSocketServer({ noServer: true, maxPayload: 25 * 1024 * 1024 }) };
      server = serve({ fetch, hostname: options.host, port: options.port, websocket }, (info: AddressInfo) => {
        const host = info.family === "IPv6" ? `[${info.address}]` : info.address;
        resolve({
          url: `http://${host}:${info.port}`,
          close: () =>
            new Promise<void>((done) => {
              // Streams that are still open (SSE) must not keep the process alive.
              (server as { closeAllConnections?: () => void }).closeAllConnections?.();
              server.close(() => done());
            }),
        });
      });
      server.once("error", reject);
    } catch (error) {
      reject(error);
    }
  });
}
