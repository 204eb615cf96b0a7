// Every call the page makes goes to this server's own origin, with the credentials the user entered
// (kept in sessionStorage only: gone when the tab closes).
const KEY = "agent-server-inspector-credentials";

/** The API's root: the page is served at <root>/inspector (outside a page, e.g. in unit tests: none). */
export const ROOT = typeof location === "undefined" ? "" : new URL("./", location.href).href.replace(/\/$/, "");

export function loadCredentials() {
  try {
    const saved = JSON.parse(sessionStorage.getItem(KEY) ?? "null");
    if (saved && typeof saved.header === "string" && typeof saved.value === "string") return saved;
  } catch (_e) {
    /* not JSON: start over */
  }
  return { header: "Authorization", value: "" };
}

export function saveCredentials(credentials) {
  sessionStorage.setItem(KEY, JSON.stringify(credentials));
}

/** An answer that is not 2xx, with the message the server gave. */
export class ApiError extends Error {
  constructor(status, message, body) {
    super(message);
    this.status = status;
    this.body = body;
  }
}

export function headers(extra = {}) {
  const h = new Headers(extra);
  const { header, value } = loadCredentials();
  if (header.trim() && value) h.set(header.trim(), value);
  return h;
}

async function failure(response) {
  const text = await response.text();
  let body = text;
  let message = `${response.status} ${response.statusText}`;
  try {
    body = JSON.parse(text);
    const detail = body?.detail ?? body?.message ?? body?.error?.message ?? body?.error;
    if (detail) message += `: ${typeof detail === "string" ? detail : JSON.stringify(detail)}`;
  } catch (_e) {
    if (text) message += `: ${text.slice(0, 500)}`;
  }
  return new ApiError(response.status, message, body);
}

/** JSON in, JSON out; throws ApiError on any non-2xx answer. */
export async function api(path, { method = "GET", body, headers: extra, signal } = {}) {
  const init = { method, headers: headers(extra), signal };
  if (body !== undefined) {
    init.headers.set("Content-Type", "application/json");
    init.body = JSON.stringify(body);
  }
  const response = await fetch(ROOT + path, init);
  if (!response.ok) throw await failure(response);
  if (response.status === 204) return null;
  const text = await response.text();
  return text ? JSON.parse(text) : null;
}

/** Reads a server-sent event stream: onEvent(event, data) per event, data parsed as JSON when it is. */
export async function readSse(response, onEvent) {
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true }).replace(/\r\n/g, "\n");
    let end;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let event = "message";
      const data = [];
      for (const line of block.split("\n")) {
        if (line.startsWith("event:")) event = line.slice(6).trim();
        else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
      }
      if (data.length === 0) continue;
      const raw = data.join("\n");
      let parsed = raw;
      try {
        parsed = JSON.parse(raw);
      } catch (_e) {
        /* plain text data */
      }
      onEvent(event, parsed);
    }
  }
}

/** POSTs `body` and reads the answer as server-sent events. */
export async function stream(path, body, onEvent, { signal, headers: extra } = {}) {
  const response = await fetch(ROOT + path, {
    method: "POST",
    headers: headers({ "Content-Type": "application/json", Accept: "text/event-stream", ...extra }),
    body: JSON.stringify(body),
    signal,
  });
  if (!response.ok) throw await failure(response);
  await readSse(response, onEvent);
}

let rpcId = 0;

/**
 * A JSON-RPC call. The answer may be JSON or (MCP's Streamable HTTP, A2A streaming) server-sent events:
 * every message is given to onMessage, and the one answering this call is returned.
 */
export async function jsonRpc(path, method, params, { headers: extra, onMessage, onResponse, signal } = {}) {
  const id = ++rpcId;
  const response = await fetch(ROOT + path, {
    method: "POST",
    headers: headers({ "Content-Type": "application/json", Accept: "application/json, text/event-stream", ...extra }),
    body: JSON.stringify({ jsonrpc: "2.0", id, method, params }),
    signal,
  });
  onResponse?.(response);
  if (!response.ok && !(response.headers.get("content-type") ?? "").includes("json")) throw await failure(response);
  let answer;
  const take = (message) => {
    onMessage?.(message);
    if (message && message.id === id && ("result" in message || "error" in message)) answer = message;
  };
  if ((response.headers.get("content-type") ?? "").includes("text/event-stream")) {
    await readSse(response, (_event, data) => take(data));
  } else {
    const text = await response.text();
    if (!text) {
      if (!response.ok) throw new ApiError(response.status, `${response.status} ${response.statusText}`);
      return undefined;
    }
    take(JSON.parse(text));
  }
  if (!answer && !response.ok) throw new ApiError(response.status, `${response.status} ${response.statusText}`);
  if (answer?.error) throw new ApiError(response.status, `JSON-RPC error ${answer.error.code}: ${answer.error.message}`, answer.error);
  return answer?.result;
}
