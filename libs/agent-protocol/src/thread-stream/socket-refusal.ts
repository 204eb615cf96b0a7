import { upgradeWebSocket } from "@hono/node-server";
import type { Context } from "hono";
import type { AppEnv } from "../app-env.js";
import { clientError } from "../http/errors.js";

/**
 * How the protocol WebSocket refuses a client: it accepts the upgrade, then closes with 4000 plus the
 * HTTP status the SSE endpoint would answer (4403 forbidden, 4404 not found, 4422 invalid), with the
 * error's detail as the reason. The SDK's WebSocket transport reads exactly that (`status: code - 4000`)
 * and ends the stream with it instead of reconnecting; a refused handshake would only show it (and a
 * browser) a connection that failed, which it retries.
 */
export function refusalCloseCode(status: number): number {
  return 4000 + status;
}

/** Answers an upgrade request with a socket that closes at once with the refusal of `error`. */
export function refuseSocket(c: Context<AppEnv>, error: unknown): Response {
  const { status, detail } = clientError(error);
  const code = status >= 400 && status < 500 ? refusalCloseCode(status) : 1011;
  return upgradeWebSocket(c, { onOpen: (_event, ws) => ws.close(code, closeReason(detail)) }) as unknown as Response;
}

/** A close reason is at most 123 bytes of UTF-8. */
export function closeReason(detail: string): string {
  const bytes = Buffer.from(detail, "utf8");
  if (bytes.length <= 123) return detail;
  let cut = 120;
  while (cut > 0 && (bytes[cut]! & 0xc0) === 0x80) cut -= 1;
  return `${bytes.subarray(0, cut).toString("utf8")}...`;
}
