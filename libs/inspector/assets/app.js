import { render } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import { A2APane } from "./a2a.js";
import { ApiError, loadCredentials, saveCredentials } from "./api.js";
import { CronsPane } from "./crons.js";
import { GraphsPane, listAssistants } from "./graphs.js";
import { McpPane } from "./mcp.js";
import { RunsPane } from "./runs.js";
import { StorePane } from "./store.js";
import { ThreadsPane } from "./threads.js";
import { ErrorBoundary, ErrorNote, html } from "./ui.js";

const PANES = [
  { id: "graphs", name: "Graphs" },
  { id: "threads", name: "Threads" },
  { id: "runs", name: "Runs" },
  { id: "a2a", name: "A2A" },
  { id: "mcp", name: "MCP" },
  { id: "store", name: "Store" },
  { id: "crons", name: "Crons" },
];

/** `#/<pane>/<rest...>` -> { pane, rest }. */
function readRoute() {
  const [pane = "graphs", ...rest] = location.hash.replace(/^#\/?/, "").split("/").map(decodeURIComponent);
  return { pane: PANES.some((p) => p.id === pane) ? pane : "graphs", rest };
}

function Credentials({ onSaved }) {
  const saved = loadCredentials();
  const [header, setHeader] = useState(saved.header);
  const [value, setValue] = useState(saved.value);
  function submit(event) {
    event.preventDefault();
    saveCredentials({ header, value });
    onSaved();
  }
  return html`<form class="credentials" onSubmit=${submit} aria-label="Credentials">
    <div>
      <label for="auth-header">Header</label>
      <input id="auth-header" type="text" value=${header} onInput=${(e) => setHeader(e.currentTarget.value)} />
    </div>
    <div>
      <label for="auth-value">Token</label>
      <input
        id="auth-value"
        type="password"
        autocomplete="off"
        placeholder="e.g. Bearer …"
        value=${value}
        onInput=${(e) => setValue(e.currentTarget.value)}
      />
    </div>
    <button type="submit">Use credentials</button>
  </form>`;
}

function App() {
  const [route, setRoute] = useState(readRoute());
  const [assistants, setAssistants] = useState(undefined);
  const [error, setError] = useState(undefined);
  const [generation, setGeneration] = useState(0);
  const [threads, setThreads] = useState({});
  const [picked, setPicked] = useState(undefined);

  useEffect(() => {
    const onHash = () => setRoute(readRoute());
    addEventListener("hashchange", onHash);
    return () => removeEventListener("hashchange", onHash);
  }, []);

  async function reload() {
    try {
      setAssistants(await listAssistants());
      setError(undefined);
    } catch (e) {
      setAssistants(undefined);
      setError(e);
    }
  }
  useEffect(() => {
    reload();
  }, [generation]);

  // After a move to another pane, focus goes to its content (screen readers read the new pane; Tab goes on from there).
  const firstPane = useRef(route.pane);
  useEffect(() => {
    if (firstPane.current === route.pane) return;
    firstPane.current = undefined;
    document.querySelector("main")?.focus({ preventScroll: true });
  }, [route.pane]);

  // The assistant picked in Graphs is the one the A2A, MCP and Runs panes start with.
  useEffect(() => {
    if (route.pane === "graphs" && route.rest[0]) setPicked(route.rest[0]);
  }, [route]);

  const unauthorized = error instanceof ApiError && (error.status === 401 || error.status === 403);
  const header = html`<header class="top">
    <h1>agent-server inspector</h1>
    ${
      assistants &&
      html`<nav class="panes" aria-label="Panes">
        <ul>
          ${PANES.map((p) => html`<li><a href=${`#/${p.id}`} aria-current=${route.pane === p.id ? "page" : undefined}>${p.name}</a></li>`)}
        </ul>
      </nav>`
    }
    <${Credentials} onSaved=${() => setGeneration(generation + 1)} />
  </header>`;

  if (error) {
    // Without valid credentials the page shows the API's answer, and nothing else.
    return html`${header}
      <main>
        <${ErrorNote} error=${error} /> ${unauthorized && html`<p class="note">Enter the header and token the server expects above.</p>`}
      </main>`;
  }
  if (!assistants)
    return html`${header}
      <main><p role="status">Loading…</p></main>`;

  const setThread = (assistantId, threadId) => setThreads({ ...threads, [assistantId]: threadId });
  const pickedAssistant = assistants.find((a) => a.assistant_id === picked || a.graph_id === picked) ?? assistants[0];
  const common = { assistants, picked: pickedAssistant };
  let pane;
  switch (route.pane) {
    case "threads":
      pane = html`<${ThreadsPane} threadId=${route.rest[0]} ...${common} />`;
      break;
    case "runs":
      pane = html`<${RunsPane} ...${common} threads=${threads} setThread=${setThread} onPick=${setPicked} />`;
      break;
    case "a2a":
      pane = html`<${A2APane} ...${common} onPick=${setPicked} />`;
      break;
    case "mcp":
      pane = html`<${McpPane} ...${common} />`;
      break;
    case "store":
      pane = html`<${StorePane} />`;
      break;
    case "crons":
      pane = html`<${CronsPane} ...${common} />`;
      break;
    default:
      pane = html`<${GraphsPane}
        assistants=${assistants}
        selectedId=${route.rest[0]}
        reload=${reload}
        threads=${threads}
        setThread=${setThread}
      />`;
  }
  const title = PANES.find((p) => p.id === route.pane).name;
  return html`${header}
    <main aria-label=${title} tabindex="-1"><${ErrorBoundary} resetKey=${location.hash}>${pane}</${ErrorBoundary}></main>`;
}

render(html`<${App} />`, document.getElementById("app"));
