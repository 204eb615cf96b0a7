import { useEffect, useState } from "preact/hooks";
import { api } from "./api.js";
import { GraphDrawing } from "./graph-view.js";
import { RunConsole } from "./run-console.js";
import { AssistantPicker } from "./pickers.js";
import { attempt, ErrorNote, html, short } from "./ui.js";

/** The Runs pane: run any assistant with every option, and the runs of its current thread. */
export function RunsPane({ assistants, picked, threads, setThread, onPick }) {
  const assistant = picked;
  const threadId = threads[assistant.assistant_id];
  const [graph, setGraph] = useState(undefined);
  const [schemas, setSchemas] = useState(undefined);
  const [runs, setRuns] = useState([]);
  const [activity, setActivity] = useState({ active: undefined, visited: [] });
  const [error, setError] = useState(undefined);
  const [loaded, setLoaded] = useState(false);
  useEffect(() => {
    setLoaded(false);
    attempt(setError, async () => {
      setGraph(await api(`/assistants/${assistant.assistant_id}/graph?xray=true`));
      setSchemas(await api(`/assistants/${assistant.assistant_id}/schemas`));
    }).finally(() => setLoaded(true));
  }, [assistant.assistant_id]);
  async function loadRuns() {
    if (!threadId) return setRuns([]);
    const list = await attempt(setError, () => api(`/threads/${threadId}/runs?limit=50`));
    if (list) setRuns(list);
  }
  useEffect(() => {
    loadRuns();
  }, [threadId, activity.active]);
  return html`<div>
    <${AssistantPicker} assistants=${assistants} value=${assistant.assistant_id} onChange=${onPick} />
    <${ErrorNote} error=${error} />
    <div class="split">
      <div>
        ${graph && html`<${GraphDrawing} graph=${graph} graphId=${assistant.graph_id} active=${activity.active} visited=${activity.visited} />`}
        <section aria-label="Runs of the thread">
          <h3>Runs of the thread</h3>
          <button type="button" class="secondary" onClick=${loadRuns}>Refresh runs</button>
          <table aria-label="Runs">
            <thead>
              <tr>
                <th>Run</th>
                <th>Status</th>
                <th>Created</th>
              </tr>
            </thead>
            <tbody>
              ${runs.map(
                (r) =>
                  html`<tr>
                    <td><code title=${r.run_id}>${short(r.run_id)}</code></td>
                    <td>${r.status}</td>
                    <td>${r.created_at}</td>
                  </tr>`,
              )}
            </tbody>
          </table>
        </section>
      </div>
      <div>
        ${
          loaded &&
          html`<${RunConsole}
            key=${assistant.assistant_id}
            assistant=${assistant}
            schemas=${schemas}
            graph=${graph}
            onActivity=${setActivity}
            threadId=${threadId}
            onThread=${(t) => setThread(assistant.assistant_id, t)}
          />`
        }
      </div>
    </div>
  </div>`;
}
