import { useEffect, useState } from "preact/hooks";
import { api } from "./api.js";
import { AssistantPicker } from "./pickers.js";
import { attempt, ErrorNote, html, Json, parseJson, short, tail } from "./ui.js";

/** Top-level keys that differ between two states' values: [{ key, before, after }]. */
export function diffValues(a = {}, b = {}) {
  const keys = [...new Set([...Object.keys(a ?? {}), ...Object.keys(b ?? {})])].sort();
  return keys
    .filter((k) => JSON.stringify(a?.[k]) !== JSON.stringify(b?.[k]))
    .map((key) => ({ key, before: a?.[key], after: b?.[key], added: !(key in (a ?? {})), removed: !(key in (b ?? {})) }));
}

function ThreadList() {
  const [threads, setThreads] = useState([]);
  const [status, setStatus] = useState("");
  const [metadata, setMetadata] = useState("");
  const [error, setError] = useState(undefined);
  async function search(event) {
    event?.preventDefault();
    const list = await attempt(setError, () =>
      api("/threads/search", {
        method: "POST",
        body: {
          limit: 100,
          sort_by: "updated_at",
          sort_order: "desc",
          ...(status ? { status } : {}),
          metadata: parseJson(metadata, "Metadata (JSON)", {}),
        },
      }),
    );
    if (list) setThreads(list);
  }
  useEffect(() => {
    search();
  }, []);
  return html`<section aria-labelledby="threads-title">
    <h2 id="threads-title">Threads</h2>
    <form onSubmit=${search} aria-label="Search threads">
      <label for="thread-status">Status</label>
      <select id="thread-status" value=${status} onChange=${(e) => setStatus(e.currentTarget.value)}>
        <option value="">any</option>
        ${["idle", "busy", "interrupted", "error"].map((s) => html`<option value=${s}>${s}</option>`)}
      </select>
      <label for="thread-metadata">Metadata (JSON)</label>
      <input
        id="thread-metadata"
        type="text"
        placeholder='{"graph_id": "echo"}'
        value=${metadata}
        onInput=${(e) => setMetadata(e.currentTarget.value)}
      />
      <button type="submit">Search</button>
    </form>
    <${ErrorNote} error=${error} />
    <ul class="plain" aria-label="Thread list">
      ${threads.map(
        (t) =>
          html`<li>
            <a href=${`#/threads/${t.thread_id}`}>${t.thread_id}</a>
            <span class="note">${t.status}, updated ${t.updated_at}${t.metadata?.graph_id ? `, ${t.metadata.graph_id}` : ""}</span>
          </li>`,
      )}
    </ul>
    ${threads.length === 0 && html`<p class="note">No threads.</p>`}
  </section>`;
}

function ThreadView({ threadId, assistants }) {
  const [thread, setThread] = useState(undefined);
  const [history, setHistory] = useState([]);
  const [error, setError] = useState(undefined);
  const [notice, setNotice] = useState("");
  const [from, setFrom] = useState("");
  const [to, setTo] = useState("");
  const [editValues, setEditValues] = useState("");
  const [asNode, setAsNode] = useState("");
  const [forkInput, setForkInput] = useState("");
  const [assistantId, setAssistantId] = useState("");
  const [busy, setBusy] = useState(false);

  async function load() {
    await attempt(setError, async () => {
      const t = await api(`/threads/${threadId}`);
      setThread(t);
      // Oldest first: a timeline.
      const h = ((await api(`/threads/${threadId}/history`, { method: "POST", body: { limit: 100 } })) ?? []).slice().reverse();
      setHistory(h);
      setFrom(h.length > 1 ? h.at(-2).checkpoint.checkpoint_id : "");
      setTo(h.length ? h.at(-1).checkpoint.checkpoint_id : "");
      setEditValues(JSON.stringify(t.values ?? {}, null, 2));
      const graph = t.metadata?.assistant_id ?? t.metadata?.graph_id;
      const match = assistants.find((a) => a.assistant_id === graph || a.graph_id === graph);
      setAssistantId((current) => current || match?.assistant_id || assistants[0]?.assistant_id || "");
    });
  }
  useEffect(() => {
    setNotice("");
    load();
  }, [threadId]);

  async function act(label, action) {
    setBusy(true);
    setNotice("");
    const done = await attempt(setError, action);
    setBusy(false);
    if (done !== undefined) setNotice(typeof done === "string" ? done : `${label}: done.`);
    return done;
  }
  const fork = (checkpoint) =>
    act("Fork", async () => {
      const run = await api(`/threads/${threadId}/runs`, {
        method: "POST",
        body: {
          assistant_id: assistantId,
          checkpoint_id: checkpoint.checkpoint_id,
          input: parseJson(forkInput, "Fork input (JSON)", null),
        },
      });
      const joined = await api(`/threads/${threadId}/runs/${run.run_id}/join`);
      const finished = await api(`/threads/${threadId}/runs/${run.run_id}`);
      await load();
      return `Forked from checkpoint ${tail(checkpoint.checkpoint_id)}: run ${short(run.run_id)} ended ${finished.status}${joined?.__error__ ? ` (${JSON.stringify(joined.__error__)})` : ""}.`;
    });
  const updateState = (event) => {
    event.preventDefault();
    return act("Update state", async () => {
      const body = { values: parseJson(editValues, "State values (JSON)", {}), ...(asNode ? { as_node: asNode } : {}) };
      if (to) body.checkpoint_id = to;
      const result = await api(`/threads/${threadId}/state`, { method: "POST", body });
      await load();
      return `State updated: new checkpoint ${tail(result?.checkpoint?.checkpoint_id ?? result?.checkpoint_id ?? "")}.`;
    });
  };
  const copy = () =>
    act("Copy", async () => {
      const copied = await api(`/threads/${threadId}/copy`, { method: "POST" });
      location.hash = `#/threads/${copied.thread_id}`;
      return `Copied to ${copied.thread_id}.`;
    });
  const prune = () =>
    act("Prune", async () => {
      await api("/threads/prune", { method: "POST", body: { thread_ids: [threadId], strategy: "keep_latest" } });
      await load();
      return "Pruned: only the latest checkpoint is kept.";
    });
  const remove = () =>
    act("Delete", async () => {
      if (!confirm(`Delete thread ${threadId}?`)) return undefined;
      await api(`/threads/${threadId}`, { method: "DELETE" });
      location.hash = "#/threads";
      return "Deleted.";
    });

  const byId = (id) => history.find((h) => h.checkpoint.checkpoint_id === id);
  const diff = from && to ? diffValues(byId(from)?.values, byId(to)?.values) : [];
  const label = (h, i) => `#${i + 1} step ${h.metadata?.step ?? "?"} (${h.metadata?.source ?? "?"}) ${tail(h.checkpoint.checkpoint_id)}`;
  return html`<section aria-labelledby="thread-title">
    <h2 id="thread-title">Thread ${threadId}</h2>
    <p><a href="#/threads">All threads</a></p>
    <${ErrorNote} error=${error} />
    ${notice && html`<p role="status" class="ok">${notice}</p>`}
    ${
      thread &&
      html`<p class="note">
          Status ${thread.status}; created ${thread.created_at}; metadata <code>${JSON.stringify(thread.metadata)}</code>
        </p>
        <div class="toolbar">
          <button type="button" disabled=${busy} onClick=${copy}>Copy thread</button>
          <button type="button" class="secondary" disabled=${busy} onClick=${prune}>Prune history</button>
          <button type="button" class="danger" disabled=${busy} onClick=${remove}>Delete thread</button>
        </div>`
    }
    <div class="split">
      <section aria-labelledby="timeline-title">
        <h3 id="timeline-title">Checkpoints</h3>
        <${AssistantPicker} assistants=${assistants} value=${assistantId} onChange=${setAssistantId} id="fork-assistant" />
        <label for="fork-input">Fork input (JSON)</label>
        <textarea
          id="fork-input"
          placeholder="empty: continue from the checkpoint as it is"
          value=${forkInput}
          onInput=${(e) => setForkInput(e.currentTarget.value)}
        ></textarea>
        <ol aria-label="Checkpoints">
          ${history.map(
            (h, i) =>
              html`<li>
                <strong>${label(h, i)}</strong>${" "}
                <span class="note"
                  >${`next: ${(h.next ?? []).join(", ") || "none"}; parent ${
                    h.parent_checkpoint ? tail(h.parent_checkpoint.checkpoint_id) : "none"
                  }; ${h.created_at}`}</span
                >${" "}
                <button
                  type="button"
                  class="secondary"
                  disabled=${busy}
                  onClick=${() => fork(h.checkpoint)}
                  aria-label=${`Fork from checkpoint ${i + 1}`}
                >
                  Fork from here
                </button>
              </li>`,
          )}
        </ol>
      </section>
      <section aria-labelledby="diff-title">
        <h3 id="diff-title">Diff between two checkpoints</h3>
        <label for="diff-from">From checkpoint</label>
        <select id="diff-from" value=${from} onChange=${(e) => setFrom(e.currentTarget.value)}>
          ${history.map((h, i) => html`<option value=${h.checkpoint.checkpoint_id}>${label(h, i)}</option>`)}
        </select>
        <label for="diff-to">To checkpoint</label>
        <select id="diff-to" value=${to} onChange=${(e) => setTo(e.currentTarget.value)}>
          ${history.map((h, i) => html`<option value=${h.checkpoint.checkpoint_id}>${label(h, i)}</option>`)}
        </select>
        <div class="diff" aria-label="Diff" role="region">
          ${diff.length === 0 && html`<p class="note">No difference in the values.</p>`}
          ${diff.map(
            (d) =>
              html`<div>
                <strong>${d.key}</strong>${d.added ? " (added)" : d.removed ? " (removed)" : ""}
                ${!d.added && html`<pre class="removed">- ${JSON.stringify(d.before, null, 2)}</pre>`}
                ${!d.removed && html`<pre class="added">+ ${JSON.stringify(d.after, null, 2)}</pre>`}
              </div>`,
          )}
        </div>
        <form onSubmit=${updateState} aria-label="Edit state">
          <h3>Edit state</h3>
          <p class="note">Writes a new checkpoint after the "To" checkpoint; a run forked from it continues with these values.</p>
          <label for="edit-values">State values (JSON)</label>
          <textarea id="edit-values" rows="6" value=${editValues} onInput=${(e) => setEditValues(e.currentTarget.value)}></textarea>
          <label for="as-node">As node</label>
          <input id="as-node" type="text" value=${asNode} onInput=${(e) => setAsNode(e.currentTarget.value)} />
          <button type="submit" disabled=${busy}>Update state</button>
        </form>
      </section>
    </div>
    ${
      thread &&
      html`<details>
        <summary>Current values</summary>
        <${Json} value=${thread.values} label="Thread values" />
      </details>`
    }
  </section>`;
}

/** The Threads pane: search, and a thread's checkpoints, diff, state edit, fork, copy, prune, delete. */
export function ThreadsPane({ threadId, assistants }) {
  return threadId ? html`<${ThreadView} key=${threadId} threadId=${threadId} assistants=${assistants} />` : html`<${ThreadList} />`;
}
