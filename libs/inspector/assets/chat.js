import { html, messageRole, messageText } from "./ui.js";

/** Adds a streamed message chunk (`messages-tuple` mode) to the list: appended to its message by id. */
export function applyMessageChunk(list, chunk) {
  if (!chunk || typeof chunk !== "object") return list;
  const index = chunk.id ? list.findIndex((m) => m.id === chunk.id) : -1;
  if (index < 0) return [...list, { ...chunk }];
  const current = list[index];
  // Chunks of one AI message carry pieces of its text; a whole message (a node's output) replaces it.
  const isChunk = String(chunk.type ?? "").endsWith("Chunk") || String(chunk.type ?? "").endsWith("chunk");
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

/** The conversation: a log of the thread's messages, with tool calls, updated as tokens stream in. */
export function Conversation({ messages }) {
  return html`<div>
    <h3 id="conversation-title">Conversation</h3>
    <div class="conversation" role="log" aria-labelledby="conversation-title" aria-live="polite">
      ${messages.length === 0 && html`<p class="note">No messages yet.</p>`}
      ${messages.map((m) => {
        const role = messageRole(m);
        return html`<div class=${`msg ${role}`} data-message-id=${m.id}>
          <span class="role">${role}${m.name ? ` (${m.name})` : ""}:</span>${messageText(m)}
          <${ToolCalls} message=${m} />
        </div>`;
      })}
    </div>
  </div>`;
}
