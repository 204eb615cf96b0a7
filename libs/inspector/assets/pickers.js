import { html } from "./ui.js";

/** A select of every assistant, labelled "Assistant". */
export function AssistantPicker({ assistants, value, onChange, id = "assistant-picker" }) {
  return html`<div>
    <label for=${id}>Assistant</label>
    <select id=${id} value=${value} onChange=${(e) => onChange(e.currentTarget.value)}>
      ${assistants.map((a) => html`<option value=${a.assistant_id}>${a.name} (${a.graph_id})</option>`)}
    </select>
  </div>`;
}
