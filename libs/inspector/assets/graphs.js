import { useEffect, useState } from "preact/hooks";
import { api } from "./api.js";
import { GraphDrawing } from "./graph-view.js";
import { RunConsole } from "./run-console.js";
import { attempt, ErrorNote, html, Json, parseJson } from "./ui.js";

/** Every assistant the caller may see (system assistants of the graphs first). */
export async function listAssistants() {
  const list = await api("/assistants/search", { method: "POST", body: { limit: 1000, sort_by: "created_at", sort_order: "asc" } });
  return list ?? [];
}

function CreateAssistant({ graphIds, onCreated }) {
  const [graphId, setGraphId] = useState(graphIds[0] ?? "");
  const [name, setName] = useState("");
  const [config, setConfig] = useState("");
  const [error, setError] = useState(undefined);
  async function submit(event) {
    event.preventDefault();
    const created = await attempt(setError, () =>
      api("/assistants", {
        method: "POST",
        body: { graph_id: graphId, ...(name ? { name } : {}), config: parseJson(config, "Config (JSON)", {}) },
      }),
    );
    if (created) {
      setName("");
      onCreated(created);
    }
  }
  return html`<form onSubmit=${submit} aria-label="Create an assistant">
    <h3>Create an assistant</h3>
    <label for="new-graph">Graph</label>
    <select id="new-graph" value=${graphId} onChange=${(e) => setGraphId(e.currentTarget.value)}>
      ${graphIds.map((g) => html`<option value=${g}>${g}</option>`)}
    </select>
    <label for="new-name">Name</label>
    <input id="new-name" type="text" value=${name} onInput=${(e) => setName(e.currentTarget.value)} />
    <label for="new-config">Config (JSON)</label>
    <textarea
      id="new-config"
      placeholder='{"configurable": {}}'
      value=${config}
      onInput=${(e) => setConfig(e.currentTarget.value)}
    ></textarea>
    <button type="submit">Create assistant</button>
    <${ErrorNote} error=${error} />
  </form>`;
}

function ConfigEditor({ assistant, onSaved }) {
  const [text, setText] = useState(JSON.stringify(assistant.config ?? {}, null, 2));
  const [context, setContext] = useState(JSON.stringify(assistant.context ?? {}, null, 2));
  const [error, setError] = useState(undefined);
  const [saved, setSaved] = useState(false);
  useEffect(() => {
    setText(JSON.stringify(assistant.config ?? {}, null, 2));
    setContext(JSON.stringify(assistant.context ?? {}, null, 2));
  }, [assistant.assistant_id, assistant.version]);
  async function save(event) {
    event.preventDefault();
    setSaved(false);
    const updated = await attempt(setError, () =>
      api(`/assistants/${assistant.assistant_id}`, {
        method: "PATCH",
        body: { config: parseJson(text, "Config (JSON)", {}), context: parseJson(context, "Context (JSON)", {}) },
      }),
    );
    if (updated) {
      setSaved(true);
      onSaved(updated);
    }
  }
  return html`<form onSubmit=${save} aria-label="Configuration">
    <label for="config-json">Config (JSON)</label>
    <textarea id="config-json" rows="6" value=${text} onInput=${(e) => setText(e.currentTarget.value)}></textarea>
    <label for="context-json">Context (JSON)</label>
    <textarea id="context-json" rows="3" value=${context} onInput=${(e) => setContext(e.currentTarget.value)}></textarea>
    <button type="submit">Save config</button>
    ${saved && html`<span role="status" class="ok">Saved as version ${assistant.version}.</span>`}
    <${ErrorNote} error=${error} />
  </form>`;
}

function AssistantView({ assistant, threadId, onThread, onChanged }) {
  const id = assistant.assistant_id;
  const [graph, setGraph] = useState(undefined);
  const [schemas, setSchemas] = useState(undefined);
  const [versions, setVersions] = useState([]);
  const [activity, setActivity] = useState({ active: undefined, visited: [] });
  const [error, setError] = useState(undefined);
  const [loaded, setLoaded] = useState(false);
  useEffect(() => {
    let live = true;
    setLoaded(false);
    setActivity({ active: undefined, visited: [] });
    (async () => {
      const [g, s, v] = await Promise.allSettled([
        api(`/assistants/${id}/graph?xray=true`),
        api(`/assistants/${id}/schemas`),
        api(`/assistants/${id}/versions`, { method: "POST", body: { limit: 20 } }),
      ]);
      if (!live) return;
      setGraph(g.status === "fulfilled" ? g.value : undefined);
      setSchemas(s.status === "fulfilled" ? s.value : undefined);
      setVersions(v.status === "fulfilled" ? (v.value ?? []) : []);
      const failed = [g, s, v].find((r) => r.status === "rejected");
      setError(failed?.reason);
      setLoaded(true);
    })();
    return () => (live = false);
  }, [id, assistant.version]);
  return html`<section aria-labelledby="assistant-title">
    <h2 id="assistant-title">${assistant.name} <span class="note">(graph ${assistant.graph_id}, version ${assistant.version})</span></h2>
    <p class="note"><code>${id}</code>${assistant.description ? ` — ${assistant.description}` : ""}</p>
    <${ErrorNote} error=${error} />
    <div class="split">
      <div>
        ${
          graph
            ? html`<${GraphDrawing} graph=${graph} graphId=${assistant.graph_id} active=${activity.active} visited=${activity.visited} />`
            : html`<p class="note">${loaded ? "No drawing." : "Loading the graph…"}</p>`
        }
        <details>
          <summary>Schemas</summary>
          ${schemas ? html`<${Json} value=${schemas} label="Schemas" />` : html`<p class="note">No schemas.</p>`}
        </details>
        <details>
          <summary>Config</summary>
          <${ConfigEditor} assistant=${assistant} onSaved=${onChanged} />
        </details>
        <details>
          <summary>Versions (${versions.length})</summary>
          <ul class="plain" aria-label="Versions">
            ${versions.map((v) => html`<li>version ${v.version}, ${v.created_at}: <code>${JSON.stringify(v.config)}</code></li>`)}
          </ul>
        </details>
      </div>
      <div>
        ${
          loaded &&
          html`<${RunConsole}
            assistant=${assistant}
            schemas=${schemas}
            graph=${graph}
            onActivity=${setActivity}
            threadId=${threadId}
            onThread=${onThread}
          />`
        }
      </div>
    </div>
  </section>`;
}

/** The Graphs pane: the assistants, and the picked one's drawing, schemas, config, versions and runs. */
export function GraphsPane({ assistants, selectedId, reload, threads, setThread }) {
  const [error, setError] = useState(undefined);
  const selected = assistants.find((a) => a.assistant_id === selectedId || a.graph_id === selectedId);
  const graphIds = [...new Set(assistants.map((a) => a.graph_id))];
  return html`<div class="columns">
    <nav aria-label="Assistants">
      <h2>Assistants</h2>
      <ul class="plain">
        ${assistants.map(
          (a) =>
            html`<li>
              <a href=${`#/graphs/${a.assistant_id}`} aria-current=${selected?.assistant_id === a.assistant_id ? "true" : undefined}
                >${a.name}</a
              >
            </li>`,
        )}
      </ul>
      <${CreateAssistant}
        graphIds=${graphIds}
        onCreated=${(a) => reload().then(() => (location.hash = `#/graphs/${a.assistant_id}`), setError)}
      />
      <${ErrorNote} error=${error} />
    </nav>
    <div>
      ${
        selected
          ? html`<${AssistantView}
              key=${selected.assistant_id}
              assistant=${selected}
              threadId=${threads[selected.assistant_id]}
              onThread=${(t) => setThread(selected.assistant_id, t)}
              onChanged=${() => reload()}
            />`
          : html`<p>Pick an assistant to see its graph and run it.</p>`
      }
    </div>
  </div>`;
}
