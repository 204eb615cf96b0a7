import { useEffect, useState } from "preact/hooks";
import { api } from "./api.js";
import { AssistantPicker } from "./pickers.js";
import { attempt, ErrorNote, html, parseJson, short } from "./ui.js";

/** The Crons pane: list, create and delete scheduled runs. */
export function CronsPane({ assistants, picked }) {
  const [crons, setCrons] = useState([]);
  const [assistantId, setAssistantId] = useState(picked.assistant_id);
  const [schedule, setSchedule] = useState("*/5 * * * *");
  const [input, setInput] = useState("");
  const [error, setError] = useState(undefined);
  async function load() {
    const r = await attempt(setError, () => api("/runs/crons/search", { method: "POST", body: { limit: 100 } }));
    if (r) setCrons(r);
  }
  useEffect(() => {
    load();
  }, []);
  async function create(event) {
    event.preventDefault();
    const r = await attempt(setError, () =>
      api("/runs/crons", { method: "POST", body: { assistant_id: assistantId, schedule, input: parseJson(input, "Input (JSON)", {}) } }),
    );
    if (r) await load();
  }
  const remove = (c) => attempt(setError, () => api(`/runs/crons/${c.cron_id}`, { method: "DELETE" })).then(load);
  return html`<div>
    <${ErrorNote} error=${error} />
    <section aria-labelledby="crons-title">
      <h2 id="crons-title">Crons</h2>
      <table aria-label="Crons">
        <thead>
          <tr>
            <th>Cron</th>
            <th>Assistant</th>
            <th>Schedule</th>
            <th>Next run</th>
            <th></th>
          </tr>
        </thead>
        <tbody>
          ${crons.map(
            (c) =>
              html`<tr>
                <td><code title=${c.cron_id}>${short(c.cron_id)}</code></td>
                <td>${c.assistant_id}</td>
                <td>${c.schedule}</td>
                <td>${c.next_run_date ?? ""}</td>
                <td>
                  <button type="button" class="danger" onClick=${() => remove(c)} aria-label=${`Delete cron ${short(c.cron_id)}`}>
                    Delete
                  </button>
                </td>
              </tr>`,
          )}
        </tbody>
      </table>
      ${crons.length === 0 && html`<p class="note">No crons.</p>`}
    </section>
    <form onSubmit=${create} aria-label="Create a cron">
      <h3>Create a cron</h3>
      <${AssistantPicker} assistants=${assistants} value=${assistantId} onChange=${setAssistantId} id="cron-assistant" />
      <label for="cron-schedule">Schedule</label>
      <input id="cron-schedule" type="text" value=${schedule} onInput=${(e) => setSchedule(e.currentTarget.value)} />
      <label for="cron-input">Input (JSON)</label>
      <textarea id="cron-input" value=${input} onInput=${(e) => setInput(e.currentTarget.value)}></textarea>
      <button type="submit">Create cron</button>
    </form>
  </div>`;
}
