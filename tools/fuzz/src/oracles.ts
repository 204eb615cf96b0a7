import type { FuzzRequest, FuzzResponse } from "./http-exchange.js";
import { VICTIM, type Secret } from "./world.js";

/** What an oracle found wrong with one exchange. */
export interface Violation {
  oracle:
    | "5xx"
    | "no response"
    | "JSON-RPC -32603"
    | "protocol unknown_error"
    | "internal error text"
    | "partial write"
    | "auth leak"
    | "server down"
    | "victim changed";
  /** Goes into the failure group's key: what makes two violations the same bug (body line, tables, leaked id kind). */
  detail: string;
}

/** JSON-RPC error code for an internal error: malformed input must never produce it. */
const INTERNAL_ERROR = -32603;

/**
 * Error text that belongs in a log, not in an answer: driver errors, stack frames, JavaScript runtime
 * errors. Checked only where the request did not contain the text itself (an echoed input is not a leak).
 */
const INTERNAL_TEXT =
  /SQLITE_\w+|SqliteError|better-sqlite3|parameter values were provided|can only bind|no such (?:column|table)|constraint failed|datatype mismatch|\bat (?:async )?[\w.$<>]+ \((?:file:|\/|node:)|node_modules|(?:Type|Reference|Range|Syntax)Error:|Cannot read propert|is not a function|is not iterable|Maximum call stack|Converting circular structure/;

/** The answer's JSON-RPC envelopes: the body itself, or each `data:` line of an SSE stream. */
export function jsonRpcEnvelopes(response: FuzzResponse): { error?: { code?: unknown; message?: unknown }; result?: unknown }[] {
  const texts = response.contentType.includes("text/event-stream")
    ? response.body
        .split("\n")
        .filter((line) => line.startsWith("data:"))
        .map((line) => line.slice(5))
    : [response.body];
  const envelopes = [];
  for (const text of texts) {
    try {
      const parsed = JSON.parse(text) as unknown;
      if (typeof parsed === "object" && parsed !== null) envelopes.push(parsed as { error?: { code?: unknown; message?: unknown } });
    } catch {
      /* not JSON: the 5xx/shape checks speak for it */
    }
  }
  return envelopes;
}

/** A thread streaming protocol command (`POST /threads/{id}/commands`): answered with a success or error envelope. */
function isProtocolCommand(request: FuzzRequest): boolean {
  return request.route.startsWith("POST /threads/{thread_id}/commands");
}

/** The error code of a protocol command's error envelope, if the answer is one. */
function protocolError(response: FuzzResponse): string | undefined {
  const [envelope] = jsonRpcEnvelopes(response) as { type?: unknown; error?: unknown }[];
  return envelope?.type === "error" && typeof envelope.error === "string" ? envelope.error : undefined;
}

/**
 * A request the server refused: a 4xx, or a JSON-RPC (A2A) or protocol-command answer carrying an error.
 * Nothing may have been written.
 */
export function refused(request: FuzzRequest, response: FuzzResponse): boolean {
  if (response.status >= 400 && response.status < 500) return true;
  if (response.status === 200 && isProtocolCommand(request)) return protocolError(response) !== undefined;
  return request.jsonRpc === true && response.status === 200 && jsonRpcEnvelopes(response).some((e) => e.error !== undefined);
}

/** The first line of the body with ids and long runs normalized, so one bug is one group whatever ids it echoed. */
export function bodyLine(body: string): string {
  return (body.split("\n").find((line) => line.trim() !== "") ?? "")
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, "<uuid>")
    .replace(/(.)\1{40,}/g, "$1…")
    .slice(0, 160);
}

/** The oracles that look at one answer (5xx, no answer, -32603, internal text, auth leak). */
export function answerViolations(request: FuzzRequest, response: FuzzResponse, secrets: Secret[]): Violation[] {
  const found: Violation[] = [];
  if (response.status === 0 && !response.timedOut) found.push({ oracle: "no response", detail: response.error ?? "" });
  if (response.status >= 500) found.push({ oracle: "5xx", detail: bodyLine(response.body) });
  if (request.jsonRpc) {
    for (const envelope of jsonRpcEnvelopes(response)) {
      if (envelope.error?.code === INTERNAL_ERROR)
        found.push({ oracle: "JSON-RPC -32603", detail: String(envelope.error.message).slice(0, 160) });
    }
  }
  // The protocol's answer to a failure the server did not expect: bad input must never produce it.
  if (isProtocolCommand(request) && protocolError(response) === "unknown_error") {
    found.push({ oracle: "protocol unknown_error", detail: bodyLine(response.body) });
  }
  const internal = INTERNAL_TEXT.exec(response.body);
  if (internal && !(request.body ?? "").includes(internal[0]) && !request.path.includes(internal[0])) {
    found.push({ oracle: "internal error text", detail: `${internal[0]} in ${bodyLine(response.body)}` });
  }
  const leak = leaked(request, response, secrets);
  if (leak) found.push({ oracle: "auth leak", detail: leak });
  return found;
}

/**
 * What of the victim's an answer to another caller reveals: an id of theirs the request did not name, or
 * their content (the seeded text in their thread's values and store item). Their `owner` metadata is no
 * marker: their assistant is readable by everyone under the fixture's policy.
 */
function leaked(request: FuzzRequest, response: FuzzResponse, secrets: Secret[]): string | undefined {
  if (secrets.length === 0 || request.headers["x-user"] === VICTIM) return undefined;
  const sent = `${request.path}\n${request.body ?? ""}`;
  if (response.body.includes(`secret of ${VICTIM}`)) return `the victim's message content`;
  if (response.status >= 200 && response.status < 300 && ownedByVictim(response)) return `a resource owned by ${VICTIM} (not an assistant)`;
  const secret = secrets.find(({ value }) => response.body.includes(value) && !sent.includes(value));
  return secret ? `the victim's ${secret.name}, not named in the request` : undefined;
}

/** Whether a JSON answer holds an object stamped `metadata.owner` = victim that is not an assistant (those are shared). */
function ownedByVictim(response: FuzzResponse): boolean {
  if (!response.body.includes(`"owner":"${VICTIM}"`)) return false;
  const walk = (value: unknown, depth: number): boolean => {
    if (depth > 20 || typeof value !== "object" || value === null) return false;
    if (Array.isArray(value)) return value.some((item) => walk(item, depth + 1));
    const object = value as Record<string, unknown>;
    const metadata = object.metadata as Record<string, unknown> | undefined;
    if (metadata?.owner === VICTIM && !("graph_id" in object)) return true;
    return Object.values(object).some((item) => walk(item, depth + 1));
  };
  return jsonRpcEnvelopes(response).some((envelope) => walk(envelope, 0));
}

/**
 * Answers that break the error-shape rule (4xx → JSON `{"detail": "..."}`; the A2A HTTP+JSON binding's own
 * `{"error": {...}}`; MCP's JSON-RPC error envelope at /mcp), and no answer over 256 KiB. Grouped apart from the failures; the CI test asserts both are empty.
 */
export function shapeWarning(request: FuzzRequest, response: FuzzResponse): string | undefined {
  if (response.status < 400 || response.status >= 500 || request.method === "HEAD") return undefined;
  // A gRPC error is a status and its details: there is no body to shape.
  if (request.grpc) return undefined;
  if (response.truncated) return `error answer over 256 KiB for a ${request.body?.length ?? 0}-char request`;
  try {
    const parsed = JSON.parse(response.body) as { detail?: unknown; error?: unknown };
    const protocolError = (request.route.includes("/a2a/") || request.path === "/mcp") && typeof parsed.error === "object";
    if (typeof parsed.detail === "string" || protocolError) return undefined;
    return `JSON without detail: ${bodyLine(response.body)}`;
  } catch {
    return `not JSON (${response.contentType || "no content-type"}): ${bodyLine(response.body)}`;
  }
}
