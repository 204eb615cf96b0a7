import { useEffect, useState } from "preact/hooks";
import { api, jsonRpc } from "./api.js";
import { AssistantPicker } from "./pickers.js";
import { attempt, ErrorNote, html, Json, short } from "./ui.js";

const V1 = { "A2A-Version": "1.0" };
const BINDINGS = ["JSONRPC", "HTTP+JSON", "GRPC"];

/** The agent card's fields checked against A2A v1.0's AgentCard: [{ name, pass, detail }]. */
export function checkCard(card) {
  const checks = [];
  const check = (name, pass, detail = "") => checks.push({ name, pass: Boolean(pass), detail });
  const nonEmpty = (v) => typeof v === "string" && v.trim() !== "";
  check("name is a non-empty string", nonEmpty(card?.name));
  check("description is a non-empty string", nonEmpty(card?.description));
  check("version is a non-empty string", nonEmpty(card?.version));
  const interfaces = card?.supportedInterfaces;
  check("supportedInterfaces lists at least one interface", Array.isArray(interfaces) && interfaces.length > 0);
  for (const [i, itf] of (Array.isArray(interfaces) ? interfaces : []).entries()) {
    let absolute;
    try {
      absolute = Boolean(new URL(itf?.url).protocol);
    } catch (_e) {
      absolute = false;
    }
    check(`supportedInterfaces[${i}].url is an absolute URL`, absolute, itf?.url);
    check(
      `supportedInterfaces[${i}].protocolBinding is one of ${BINDINGS.join(", ")}`,
      BINDINGS.includes(itf?.protocolBinding),
      itf?.protocolBinding,
    );
    check(`supportedInterfaces[${i}].protocolVersion is set`, nonEmpty(itf?.protocolVersion), itf?.protocolVersion);
  }
  check("capabilities is an object", card?.capabilities && typeof card.capabilities === "object");
  check(
    "defaultInputModes is a non-empty list of media types",
    Array.isArray(card?.defaultInputModes) && card.defaultInputModes.length > 0,
  );
  check(
    "defaultOutputModes is a non-empty list of media types",
    Array.isArray(card?.defaultOutputModes) && card.defaultOutputModes.length > 0,
  );
  check("skills is a list", Array.isArray(card?.skills));
  for (const [i, s] of (Array.isArray(card?.skills) ? card.skills : []).entries()) {
    check(
      `skills[${i}] has id, name, description and tags`,
      nonEmpty(s?.id) && nonEmpty(s?.name) && nonEmpty(s?.description) && Array.isArray(s?.tags),
      s?.id,
    );
  }
  return checks;
}

/** The text of a task's artifacts: their text parts (data parts as JSON when an artifact has no text). */
export function artifactText(task) {
  return (task?.artifacts ?? [])
    .map((a) => {
      const parts = a.parts ?? [];
      const texts = parts.filter((p) => typeof p.text === "string").map((p) => p.text);
      return texts.length ? texts.join("\n") : parts.map((p) => (p.data !== undefined ? JSON.stringify(p.data) : "")).join("\n");
    })
    .join("\n");
}

const stateName = (task) => String(task?.status?.state ?? "").replace(/^TASK_STATE_/, "");

function PushConfigs({ path, task }) {
  const [configs, setConfigs] = useState([]);
  const [url, setUrl] = useState("");
  const [token, setToken] = useState("");
  const [error, setError] = useState(undefined);
  async function load() {
    const r = await attempt(setError, () => jsonRpc(path, "ListTaskPushNotificationConfigs", { taskId: task.id }, { headers: V1 }));
    if (r) setConfigs(r.configs ?? []);
  }
  useEffect(() => {
    load();
  }, [task.id]);
  async function add(event) {
    event.preventDefault();
    const created = await attempt(setError, () =>
      jsonRpc(
        path,
        "CreateTaskPushNotificationConfig",
        { taskId: task.id, id: crypto.randomUUID(), url, ...(token ? { token } : {}) },
        { headers: V1 },
      ),
    );
    if (created) {
      setUrl("");
      await load();
    }
  }
  const remove = (id) =>
    attempt(setError, () => jsonRpc(path, "DeleteTaskPushNotificationConfig", { taskId: task.id, id }, { headers: V1 })).then(load);
  return html`<section aria-label="Push configs">
    <h3>Push configs of task ${short(task.id)}</h3>
    <ul class="plain">
      ${configs.map((c) => html`<li><code>${c.url}</code> <button type="button" class="danger" onClick=${() => remove(c.id)}>Delete push config ${short(c.id)}</button></li>`)}
    </ul>
    ${configs.length === 0 && html`<p class="note">None.</p>`}
    <form onSubmit=${add}>
      <label for="push-url">Push URL</label>
      <input id="push-url" type="text" value=${url} onInput=${(e) => setUrl(e.currentTarget.value)} />
      <label for="push-token">Push token</label>
      <input id="push-token" type="text" value=${token} onInput=${(e) => setToken(e.currentTarget.value)} />
      <button type="submit">Add push config</button>
    </form>
    <${ErrorNote} error=${error} />
  </section>`;
}

/** The A2A pane: the agent card and its checks, send or stream messages, the context's tasks. */
export function A2APane({ assistants, picked, onPick }) {
  const assistant = picked;
  const path = `/a2a/${encodeURIComponent(assistant.assistant_id)}`;
  const [card, setCard] = useState(undefined);
  const [contextId, setContextId] = useState(undefined);
  const [tasks, setTasks] = useState([]);
  const [message, setMessage] = useState("");
  const [streaming, setStreaming] = useState(false);
  const [events, setEvents] = useState([]);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState(undefined);
  const [pushTask, setPushTask] = useState(undefined);

  useEffect(() => {
    setCard(undefined);
    setContextId(undefined);
    setTasks([]);
    setEvents([]);
    setPushTask(undefined);
    attempt(setError, async () => setCard(await api(`${path}/.well-known/agent-card.json`)));
  }, [path]);

  async function loadTasks(context = contextId) {
    const r = await attempt(setError, () =>
      jsonRpc(path, "ListTasks", { ...(context ? { contextId: context } : {}), includeArtifacts: true, pageSize: 100 }, { headers: V1 }),
    );
    if (r) setTasks(r.tasks ?? []);
  }
  useEffect(() => {
    loadTasks(contextId);
  }, [path, contextId]);

  async function send(event) {
    event.preventDefault();
    if (!message.trim()) return setError(new Error("Message is empty: type the text to send."));
    const params = {
      message: { messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text: message }], ...(contextId ? { contextId } : {}) },
    };
    setBusy(true);
    setEvents([]);
    await attempt(setError, async () => {
      let task;
      if (streaming) {
        await jsonRpc(path, "SendStreamingMessage", params, {
          headers: V1,
          onMessage: (m) => {
            setEvents((list) => [...list, m]);
            const r = m?.result;
            task = r?.task ?? task;
            if (!task && (r?.statusUpdate?.contextId || r?.artifactUpdate?.contextId))
              task = { contextId: (r.statusUpdate ?? r.artifactUpdate).contextId };
            if (m?.error) throw new Error(`JSON-RPC error ${m.error.code}: ${m.error.message}`);
          },
        });
      } else {
        const r = await jsonRpc(path, "SendMessage", params, { headers: V1 });
        setEvents([{ result: r }]);
        task = r?.task ?? r?.message ?? r;
      }
      setMessage("");
      const context = task?.contextId ?? contextId;
      if (context !== contextId) setContextId(context);
      else await loadTasks(context);
    });
    setBusy(false);
  }
  const cancel = (task) => attempt(setError, () => jsonRpc(path, "CancelTask", { id: task.id }, { headers: V1 })).then(() => loadTasks());
  const checks = card ? checkCard(card) : [];
  const failed = checks.filter((c) => !c.pass).length;

  return html`<div>
    <${AssistantPicker} assistants=${assistants} value=${assistant.assistant_id} onChange=${onPick} id="a2a-assistant" />
    <${ErrorNote} error=${error} />
    <div class="split">
      <div>
        <section aria-labelledby="a2a-send-title">
          <h2 id="a2a-send-title">Send to ${card?.name ?? assistant.name}</h2>
          <p class="note">
            Context:
            ${contextId ? html`<code>${contextId}</code> <button type="button" class="secondary" onClick=${() => setContextId(undefined)}>New context</button>` : "a new one (the first message creates it)"}
          </p>
          <form onSubmit=${send}>
            <label for="a2a-message">Message</label>
            <input id="a2a-message" type="text" value=${message} onInput=${(e) => setMessage(e.currentTarget.value)} />
            <label class="inline"
              ><input type="checkbox" checked=${streaming} onChange=${() => setStreaming(!streaming)} />Stream (SendStreamingMessage)</label
            >
            <button type="submit" disabled=${busy}>Send</button>
            ${busy && html`<span role="status">Sending…</span>`}
          </form>
        </section>
        <section aria-labelledby="a2a-tasks-title">
          <h2 id="a2a-tasks-title">Tasks</h2>
          <button type="button" class="secondary" onClick=${() => loadTasks()}>Refresh tasks</button>
          <table aria-label="Tasks">
            <thead>
              <tr>
                <th>Task</th>
                <th>State</th>
                <th>Artifact</th>
                <th>Actions</th>
              </tr>
            </thead>
            <tbody>
              ${tasks.map(
                (t) =>
                  html`<tr>
                    <td><code>${t.id}</code></td>
                    <td>${stateName(t)}</td>
                    <td>${artifactText(t)}</td>
                    <td>
                      <button type="button" class="danger" onClick=${() => cancel(t)} aria-label=${`Cancel task ${short(t.id)}`}>
                        Cancel
                      </button>
                      <button
                        type="button"
                        class="secondary"
                        onClick=${() => setPushTask(t)}
                        aria-label=${`Push configs of task ${short(t.id)}`}
                      >
                        Push configs
                      </button>
                    </td>
                  </tr>`,
              )}
            </tbody>
          </table>
          ${tasks.length === 0 && html`<p class="note">No tasks${contextId ? " in this context" : ""}.</p>`}
        </section>
        ${pushTask && html`<${PushConfigs} key=${pushTask.id} path=${path} task=${pushTask} />`}
      </div>
      <div>
        <section aria-labelledby="card-title">
          <h2 id="card-title">Agent card</h2>
          ${
            card &&
            html`<p role="status" class=${failed ? "bad" : "ok"}>
                ${failed ? `${failed} of ${checks.length} checks fail` : `All ${checks.length} checks pass`} (A2A v1.0 AgentCard)
              </p>
              <ul class="checks" aria-label="Card checks">
                ${checks.map((c) => html`<li class=${c.pass ? "pass" : "fail"}>${c.name}${c.detail ? html` <code>${c.detail}</code>` : ""}</li>`)}
              </ul>
              <details>
                <summary>Card JSON</summary>
                <${Json} value=${card} label="Agent card" />
              </details>`
          }
        </section>
        <h3 id="a2a-events-title">Responses</h3>
        <div class="events" role="log" aria-labelledby="a2a-events-title">
          ${events.map((e) => html`<div>${JSON.stringify(e).slice(0, 3000)}</div>`)}
        </div>
      </div>
    </div>
  </div>`;
}
