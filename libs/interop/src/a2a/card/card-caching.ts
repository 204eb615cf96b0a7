import { createHash } from "node:crypto";
import type { Context } from "hono";
import type { Assistant } from "@agent-server/core";

/**
 * How long (seconds) a client may use a fetched card before asking again. Short, because a card follows
 * its assistant (`PATCH /assistants` changes it at once); a client past it revalidates with the ETag and
 * gets a 304 without a body while nothing changed.
 */
export const AGENT_CARD_MAX_AGE_SECONDS = 300;

/**
 * When the cards of this app last changed for reasons other than their assistant: the routes were built
 * (langgraph.json and the graphs are read at start), or the card started or stopped listing the gRPC
 * interface (the gRPC server binds after the HTTP server). A card's Last-Modified is the later of this and
 * its assistant's `updated_at`, so a client revalidating with If-Modified-Since alone never keeps a card
 * that changed under it.
 */
export class CardRevisions {
  private since = Date.now();
  private grpcListed = false;

  lastModified(assistant: Assistant, grpcListed: boolean): Date {
    if (grpcListed !== this.grpcListed) {
      this.grpcListed = grpcListed;
      this.since = Date.now();
    }
    const updated = Date.parse(assistant.updated_at);
    return new Date(Math.max(Number.isFinite(updated) ? updated : 0, this.since));
  }
}

/**
 * The agent card response with HTTP caching (A2A v1.0 section 8.6.1): `Cache-Control: max-age`, a strong
 * `ETag` (SHA-256 of the exact body: two bodies that differ in one byte never share it), `Last-Modified`.
 * A conditional GET whose `If-None-Match` names the current ETag — or, without If-None-Match, whose
 * `If-Modified-Since` is not before Last-Modified — is answered 304 with those headers and no body
 * (RFC 9110 section 13.2.2: If-None-Match wins over If-Modified-Since).
 *
 * No `public`: under custom auth the card is only served to authenticated callers, and a shared cache
 * must not store an answer to a request with `Authorization` without it (RFC 9111 section 3.5).
 */
export function agentCardResponse(c: Context, card: Record<string, unknown>, lastModified: Date): Response {
  const body = JSON.stringify(card);
  const etag = `"${createHash("sha256").update(body).digest("base64url")}"`;
  // HTTP dates have whole seconds: compared and sent as such.
  const modified = Math.floor(lastModified.getTime() / 1000) * 1000;
  const headers: Record<string, string> = {
    "Cache-Control": `max-age=${AGENT_CARD_MAX_AGE_SECONDS}`,
    ETag: etag,
    "Last-Modified": new Date(modified).toUTCString(),
  };
  if (notModified(c.req.header("if-none-match"), c.req.header("if-modified-since"), etag, modified)) {
    return new Response(null, { status: 304, headers });
  }
  return new Response(body, { status: 200, headers: { ...headers, "Content-Type": "application/json" } });
}

function notModified(ifNoneMatch: string | undefined, ifModifiedSince: string | undefined, etag: string, modified: number): boolean {
  if (ifNoneMatch !== undefined) {
    // Weak comparison, as RFC 9110 section 13.1.2 asks for If-None-Match: W/"x" matches "x".
    return ifNoneMatch.split(",").some((tag) => {
      const candidate = tag.trim();
      return candidate === "*" || candidate.replace(/^W\//, "") === etag;
    });
  }
  if (ifModifiedSince === undefined) return false;
  const since = Date.parse(ifModifiedSince);
  return Number.isFinite(since) && modified <= since;
}
