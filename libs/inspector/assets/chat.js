import { useState } from "preact/hooks";
import { html, messageRole, messageText } from "./ui.js";

/**
 * Adds a streamed message (`messages-tuple` mode) to the list. A model's tokens arrive as chunks of one
 * message id (they carry `tool_call_chunks`, or a `...Chunk` type): their text is appended. A node's whole
 * message replaces the one of its id, or is appended.
 */
export function applyMessageChunk(list, chunk) {
  if (!chunk || typeof chunk !== "object") return list;
  const index = chunk.id ? list.findIndex((m) => m.id === chunk.id) : -1;
  if (index < 0) return [...list, { ...chunk }];
  const current = list[index];
  const isChunk = "tool_call_chunks" in chunk || /chunk$/i.test(String(chunk.type ?? ""));
  const merged = isChunk ? { ...current, content: messageText(current) + messageText(chunk) } : { ...current, ...chunk };
  return list.map((m, i) => (i === index ? merged : m));
}

function ToolCalls({ message }) {
  const calls = message.tool_calls ?? [];
  if (!calls.length) return null;
  return html`<ul aria-label="Tool calls">
    ${calls.map((c) => html`<li><code>${c.name}(${JSON.stringify(c.args)})</code></li>`)}
  </ul>`;
}

/** A human message, with an Edit button that sends an edited copy from the checkpoint before it (a branch). */
function HumanMessage({ message, index, onEdit, disabled }) {
  const [editing, setEditing] = useState(false);
  const [text, setText] = useState("");
  if (!editing) {
    return html`<div class="msg human" data-message-id=${message.id}>
      <span class="role">human:</span>${messageText(message)}
      ${
        onEdit &&
        html` <button
          type="button"
          class="secondary"
          disabled=${disabled}
          aria-label=${`Edit message ${index + 1}`}
          onClick=${() => (setText(messageText(message)), setEditing(true))}
        >
          Edit
        </button>`
      }
    </div>`;
  }
  const submit = (event) => {
    event.preventDefault();
    setEditing(false);
    onEdit(index, text);
  };
  return html`<form class="msg human" onSubmit=${submit} aria-label=${`Edit message ${index + 1}`}>
    <label for=${`edit-${index}`}>Edited message</label>
    <textarea id=${`edit-${index}`} rows="2" value=${text} onInput=${(e) => setText(e.currentTarget.value)}></textarea>
    <button type="submit">Send edit</button>
    <button type="button" class="secondary" onClick=${() => setEditing(false)}>Keep the message</button>
  </form>`;
}

/**
 * The conversation: a log of the thread's messages, with tool calls, updated as tokens stream in. With
 * `onEdit(index, text)`, human messages can be edited: the run branches from before that message.
 */
export function Conversation({ messages, onEdit, busy }) {
  return html`<div>
    <h3 id="conversation-title">Conversation</h3>
    <div class="conversation" role="log" aria-labelledby="conversation-title" aria-live="polite">
      ${messages.length === 0 && html`<p class="note">No messages yet.</p>`}
      ${messages.map((m, index) => {
        const role = messageRole(m);
        if (role === "human")
          return html`<${HumanMessage} key=${m.id ?? index} message=${m} index=${index} onEdit=${onEdit} disabled=${busy} />`;
        return html`<div class=${`msg ${role}`} data-message-id=${m.id}>
          <span class="role">${role}${m.name ? ` (${m.name})` : ""}:</span>${messageText(m)}
          <${ToolCalls} message=${m} />
        </div>`;
      })}
    </div>
  </div>`;
}
