import { html, short } from "./ui.js";

/**
 * The remote A2A calls a run made through `agent-server/a2a` (remoteAgent), as [{ agent, url, taskId,
 * contextId, state }], newest last, from what the page already has: the run's `updates` events (the
 * durable steps `a2a.send`, `a2a.reply` and `a2a.wait` each report their task), the interrupts a
 * remote's question became, and the answers' `a2a` records in the conversation.
 */
export function remoteCalls(events = [], messages = [], interrupts = []) {
  const calls = new Map();
  const upsert = (taskId, fields) => {
    if (!taskId) return;
    calls.set(taskId, { ...calls.get(taskId), taskId, ...fields });
  };
  for (const { event, data } of events) {
    if (event !== "updates" || !data || typeof data !== "object") continue;
    for (const step of ["a2a.send", "a2a.reply"]) {
      const sent = data[step];
      if (sent) upsert(sent.taskId, { agent: sent.agent, url: sent.url, contextId: sent.contextId, state: sent.state });
    }
    const waited = data["a2a.wait"];
    if (waited) upsert(waited.taskId, { state: waited.state });
  }
  for (const i of interrupts) {
    const value = i?.value ?? i;
    if (value?.type === "a2a.input_required" || value?.type === "a2a.auth_required") {
      upsert(value.taskId, {
        agent: value.agent,
        url: value.url,
        contextId: value.contextId,
        state: value.type === "a2a.auth_required" ? "auth-required" : "input-required",
      });
    }
  }
  for (const m of messages) {
    const record = m?.response_metadata?.a2a ?? m?.artifact?.a2a;
    if (record?.taskId && calls.has(record.taskId)) upsert(record.taskId, { state: record.state });
  }
  return [...calls.values()];
}

/** The table of a run's remote calls, when it made any. */
export function RemoteCalls({ calls }) {
  if (!calls.length) return null;
  return html`<section aria-label="Remote agent calls">
    <h3>Remote agents</h3>
    <table>
      <thead>
        <tr>
          <th>Agent</th>
          <th>Task</th>
          <th>State</th>
          <th>Context</th>
        </tr>
      </thead>
      <tbody>
        ${calls.map(
          (c) =>
            html`<tr>
              <td title=${c.url ?? ""}>${c.agent ?? c.url ?? "?"}</td>
              <td title=${c.taskId}>${short(c.taskId)}</td>
              <td>${c.state ?? "unknown"}</td>
              <td title=${c.contextId ?? ""}>${c.contextId ? short(c.contextId) : ""}</td>
            </tr>`,
        )}
      </tbody>
    </table>
  </section>`;
}
