import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

/** One POST a receiver answered with 2xx. */
export interface ReceivedNotification {
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** The raw request body. */
  body: string;
}

export interface TestReceiver {
  /** `http://127.0.0.1:<port>/hook` */
  url: string;
  /** Notifications answered 200, in arrival order. */
  received: ReceivedNotification[];
  /** Requests seen, including the ones answered 500. */
  attempts(): number;
  close(): Promise<void>;
}

/**
 * A real push notification receiver for tests: node:http on a loopback port chosen by the OS. The first
 * `failures` requests are answered 500 (the sender must retry), the rest 200.
 */
export async function startReceiver(failures = 0): Promise<TestReceiver> {
  const received: ReceivedNotification[] = [];
  let attempts = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      attempts += 1;
      if (attempts <= failures) {
        res.writeHead(500).end("not yet");
        return;
      }
      received.push({ path: req.url ?? "", headers: req.headers, body: Buffer.concat(chunks).toString("utf8") });
      res.writeHead(200).end("ok");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    attempts: () => attempts,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
