import { useEffect, useRef, useState } from "preact/hooks";
import { headers as authHeaders, jsonRpc, ROOT } from "./api.js";
import { attempt, ErrorNote, html, Json, parseJson } from "./ui.js";

const PROTOCOL = "2025-06-18";

/** The text a tools/call result carries (its text content; other content as JSON). */
export function resultText(result) {
  return (result?.content ?? []).map((c) => (c.type === "text" ? c.text : JSON.stringify(c))).join("\n");
}

/** A client of this server's /mcp (Streamable HTTP): initialize once, then calls with the session it got, if any. */
function useMcp() {
  const session = useRef(undefined);
  const ready = useRef(undefined);
  const headers = () => ({ "MCP-Protocol-Version": PROTOCOL, ...(session.current ? { "Mcp-Session-Id": session.current } : {}) });
  async function initialize() {
    await jsonRpc(
      "/mcp",
      "initialize",
      { protocolVersion: PROTOCOL, capabilities: {}, clientInfo: { name: "agent-server-inspector", version: "1" } },
      { onResponse: (r) => (session.current = r.headers.get("mcp-session-id") ?? undefined) },
    );
    await fetch(`${ROOT}/mcp`, {
      method: "POST",
      headers: authHeaders({ "Content-Type": "application/json", Accept: "application/json, text/event-stream", ...headers() }),
      body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
    });
  }
  return async (method, params, options = {}) => {
    ready.current ??= initialize().catch((e) => {
      ready.current = undefined;
      throw e;
    });
    await ready.current;
    return jsonRpc("/mcp", method, params, { ...options, headers: headers() });
  };
}

function ToolForm({ tool, call }) {
  const props = Object.entries(tool.inputSchema?.properties ?? {});
  const [values, setValues] = useState({});
  const [raw, setRaw] = useState("");
  const [result, setResult] = useState(undefined);
  const [progress, setProgress] = useState([]);
  const [error, setError] = useState(undefined);
  const [busy, setBusy] = useState(false);
  async function submit(event) {
    event.preventDefault();
    setResult(undefined);
    setProgress([]);
    setBusy(true);
    const r = await attempt(setError, () => {
      let args = parseJson(raw, "Arguments (JSON)");
      if (args === undefined) {
        args = {};
        for (const [name, schema] of props) {
          const text = values[name] ?? "";
          if (text !== "") args[name] = schema?.type === "string" ? text : parseJson(text, name);
        }
      }
      const progressToken = crypto.randomUUID();
      return call(
        "tools/call",
        { name: tool.name, arguments: args, _meta: { progressToken } },
        { onMessage: (m) => m?.method === "notifications/progress" && setProgress((list) => [...list, m.params]) },
      );
    });
    setBusy(false);
    if (r) setResult(r);
  }
  return html`<section aria-labelledby="tool-title">
    <h2 id="tool-title">${tool.name}</h2>
    ${tool.description && html`<p>${tool.description}</p>`}
    <form onSubmit=${submit} aria-label="Arguments">
      ${props.map(
        ([name, schema]) =>
          html`<label for=${`arg-${name}`}>${name}</label>
            <input
              id=${`arg-${name}`}
              type="text"
              placeholder=${schema?.type && schema.type !== "string" ? `${schema.type} (JSON)` : ""}
              value=${values[name] ?? ""}
              onInput=${(e) => setValues({ ...values, [name]: e.currentTarget.value })}
            />`,
      )}
      <label for="tool-raw">Arguments (JSON)</label>
      <textarea
        id="tool-raw"
        placeholder="Overrides the fields above when not empty"
        value=${raw}
        onInput=${(e) => setRaw(e.currentTarget.value)}
      ></textarea>
      <button type="submit" disabled=${busy}>Call</button>
      ${busy && html`<span role="status">Calling…</span>`}
    </form>
    <${ErrorNote} error=${error} />
    ${
      progress.length > 0 &&
      html`<ul aria-label="Progress">
        ${progress.map((p) => html`<li>${p.progress}${p.total ? `/${p.total}` : ""} ${p.message ?? ""}</li>`)}
      </ul>`
    }
    ${
      result &&
      html`<section aria-label="Result">
        <h3>Result${result.isError ? " (tool error)" : ""}</h3>
        <pre class=${result.isError ? "bad" : ""}>${resultText(result)}</pre>
        ${
          result.structuredContent &&
          html`<details>
            <summary>Structured content</summary>
            <${Json} value=${result.structuredContent} label="Structured content" />
          </details>`
        }
      </section>`
    }
    <details>
      <summary>Input schema</summary>
      <${Json} value=${tool.inputSchema} label="Input schema" />
    </details>
  </section>`;
}

/** The MCP pane: /mcp's tools as buttons; a picked tool's argument form, Call, progress and result. */
export function McpPane() {
  const call = useMcp();
  const [tools, setTools] = useState(undefined);
  const [picked, setPicked] = useState(undefined);
  const [error, setError] = useState(undefined);
  useEffect(() => {
    attempt(setError, async () => setTools((await call("tools/list", {}))?.tools ?? []));
  }, []);
  const tool = tools?.find((t) => t.name === picked);
  return html`<div class="columns">
    <section aria-labelledby="tools-title">
      <h2 id="tools-title">Tools</h2>
      <${ErrorNote} error=${error} />
      ${tools === undefined && !error && html`<p role="status">Loading tools…</p>`}
      <ul class="plain">
        ${(tools ?? []).map(
          (t) =>
            html`<li>
              <button
                type="button"
                class=${t.name === picked ? "" : "secondary"}
                aria-pressed=${t.name === picked}
                onClick=${() => setPicked(t.name)}
              >
                ${t.name}
              </button>
            </li>`,
        )}
      </ul>
    </section>
    <div>${tool ? html`<${ToolForm} key=${tool.name} tool=${tool} call=${call} />` : html`<p>Pick a tool to call it.</p>`}</div>
  </div>`;
}
