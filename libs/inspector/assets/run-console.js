import { useEffect, useRef, useState } from "preact/hooks";
import { api, stream } from "./api.js";
import { Conversation, applyMessageChunk } from "./chat.js";
import { RemoteCalls, remoteCalls } from "./remote-calls.js";
import { ErrorNote, html, Json, parseJson, short } from "./ui.js";

const MAX_EVENTS = 1000;
const MODES = ["values", "updates", "messages-tuple", "tasks", "debug", "custom", "events", "checkpoints"];

/** Top-level properties of an input JSON schema (resolving a local $ref), or [] when it has none. */
export function inputFields(schema) {
  let s = schema;
  if (s?.$ref && s.definitions) s = s.definitions[s.$ref.split("/").at(-1)];
  const props = s?.properties ?? {};
  return Object.entries(props).map(([name, prop]) => ({ name, type: prop?.type, description: prop?.description }));
}

export const isChatGraph = (schema) => inputFields(schema).some((f) => f.name === "messages");

/** The interrupts waiting on a thread state (its `interrupts` list, else its tasks'). */
export function pendingInterrupts(state) {
  if (Array.isArray(state?.interrupts) && state.interrupts.length) return state.interrupts;
  return (state?.tasks ?? []).flatMap((t) => t.interrupts ?? []);
}

/**
 * Runs an assistant on a thread and shows what happens: chat mode for message graphs (a Message box and
 * the conversation), else a form from the input schema plus raw JSON; stream modes, breakpoints, the raw
 * event log, cancel, interrupts with their payload and a Resume, and the remote A2A calls the run made. `onActivity({ active, visited })`
 * tells the drawing which node runs now.
 */
export function RunConsole({ assistant, schemas, graph, onActivity, threadId, onThread }) {
  const chat = isChatGraph(schemas?.input_schema);
  const fields = inputFields(schemas?.input_schema);
  const nodes = (graph?.nodes ?? []).map((n) => String(n.id)).filter((id) => !id.startsWith("__") && !id.includes(":"));
  const [modes, setModes] = useState(chat ? ["values", "updates", "messages-tuple", "tasks"] : ["values", "updates", "tasks"]);
  const [before, setBefore] = useState([]);
  const [after, setAfter] = useState([]);
  const [message, setMessage] = useState("");
  const [formValues, setFormValues] = useState({});
  const [rawInput, setRawInput] = useState("");
  const [events, setEvents] = useState([]);
  const [running, setRunning] = useState(undefined);
  const [error, setError] = useState(undefined);
  const [state, setState] = useState(undefined);
  const [messages, setMessages] = useState([]);
  const [resumeValue, setResumeValue] = useState("");
  const [command, setCommand] = useState("");
  const abort = useRef(undefined);

  // A different assistant or thread: start from that thread's state.
  useEffect(() => {
    setEvents([]);
    setError(undefined);
    setState(undefined);
    setMessages([]);
    if (threadId) refreshState(threadId);
  }, [assistant.assistant_id, threadId]);

  async function refreshState(tid) {
    try {
      const s = await api(`/threads/${tid}/state`);
      setState(s);
      if (Array.isArray(s?.values?.messages)) setMessages(s.values.messages);
    } catch (e) {
      setError(e);
    }
  }

  function buildInput() {
    if (chat) return { messages: [{ role: "user", content: message }] };
    const raw = parseJson(rawInput, "Input (JSON)");
    if (raw !== undefined) return raw;
    const input = {};
    for (const f of fields) {
      const text = formValues[f.name] ?? "";
      if (text === "") continue;
      input[f.name] = f.type === "string" || f.type === undefined ? text : parseJson(text, f.name);
    }
    return input;
  }

  async function start(body) {
    setError(undefined);
    setEvents([]);
    const visited = [];
    onActivity?.({ active: undefined, visited: [] });
    const controller = new AbortController();
    abort.current = controller;
    let tid = threadId;
    let runId;
    try {
      if (!tid) {
        tid = (await api("/threads", { method: "POST", body: {} })).thread_id;
        onThread?.(tid);
      }
      setRunning({ threadId: tid });
      const request = {
        assistant_id: assistant.assistant_id,
        stream_mode: modes,
        ...(before.length ? { interrupt_before: before } : {}),
        ...(after.length ? { interrupt_after: after } : {}),
        ...body,
      };
      await stream(
        `/threads/${tid}/runs/stream`,
        request,
        (event, data) => {
          // The latest events only: a long run must not grow the page without bound.
          setEvents((list) => [...list.slice(-MAX_EVENTS + 1), { event, data }]);
          if (event === "metadata" && data?.run_id) {
            runId = data.run_id;
            setRunning({ threadId: tid, runId });
          } else if (event === "values" && Array.isArray(data?.messages)) {
            setMessages(data.messages);
          } else if (event === "messages" && Array.isArray(data)) {
            setMessages((list) => applyMessageChunk(list, data[0]));
          } else if (event === "tasks" && data?.name) {
            if ("result" in data || "error" in data || "interrupts" in data) {
              if (!visited.includes(data.name)) visited.push(data.name);
              onActivity?.({ active: undefined, visited: [...visited] });
            } else onActivity?.({ active: data.name, visited: [...visited] });
          } else if (event === "updates" && data && typeof data === "object") {
            for (const name of Object.keys(data)) if (!name.startsWith("__") && !visited.includes(name)) visited.push(name);
            onActivity?.({ active: undefined, visited: [...visited] });
          } else if (event === "error") {
            setError(new Error(`The run failed: ${data?.message ?? JSON.stringify(data)}`));
          }
        },
        { signal: controller.signal },
      );
    } catch (e) {
      if (e.name !== "AbortError") setError(e);
    } finally {
      abort.current = undefined;
      setRunning(undefined);
      onActivity?.({ active: undefined, visited: [...visited] });
      if (tid) await refreshState(tid);
    }
  }

  async function send(event) {
    event.preventDefault();
    let input;
    try {
      input = buildInput();
    } catch (e) {
      setError(e);
      return;
    }
    if (chat) setMessage("");
    await start({ input });
  }

  /** Branches the thread: the edited message is sent from the newest checkpoint holding exactly the messages before it. */
  async function editMessage(index, text) {
    try {
      const history = (await api(`/threads/${threadId}/history`, { method: "POST", body: { limit: 1000 } })) ?? [];
      const before = messages.slice(0, index).map((m) => m.id);
      const target = history.find((h) => {
        const list = h.values?.messages ?? [];
        return list.length === index && list.every((m, i) => m.id === before[i]);
      });
      if (!target) throw new Error("No checkpoint holds the conversation before this message (pruned?): it cannot be edited.");
      await start({ input: { messages: [{ role: "user", content: text }] }, checkpoint_id: target.checkpoint.checkpoint_id });
    } catch (e) {
      setError(e);
    }
  }

  async function cancel() {
    const { threadId: tid, runId } = running ?? {};
    try {
      if (tid && runId) await api(`/threads/${tid}/runs/${runId}/cancel?action=interrupt`, { method: "POST" });
    } catch (e) {
      setError(e);
    }
    abort.current?.abort();
  }

  async function resume(event) {
    event.preventDefault();
    let value;
    try {
      value = resumeValue.trim() === "" ? "" : resumeValue;
      try {
        value = JSON.parse(resumeValue);
      } catch (_e) {
        /* a plain string */
      }
      const cmd = parseJson(command, "Command (JSON)");
      setResumeValue("");
      await start({ command: cmd ?? { resume: value } });
    } catch (e) {
      setError(e);
    }
  }

  const interrupts = pendingInterrupts(state);
  const paused = !interrupts.length && (state?.next ?? []).length > 0;
  const toggle = (list, set, value) => set(list.includes(value) ? list.filter((v) => v !== value) : [...list, value]);

  return html`<section aria-label="Run">
    <h3>Run ${assistant.name ?? assistant.graph_id}</h3>
    <p class="note">
      Thread: ${threadId ? html`<a href=${`#/threads/${threadId}`}>${threadId}</a>` : "a new one is created by the first run"}
      ${threadId && html` <button type="button" class="secondary" onClick=${() => onThread?.(undefined)}>New thread</button>`}
    </p>
    ${chat && html`<${Conversation} messages=${messages} onEdit=${threadId ? editMessage : undefined} busy=${Boolean(running)} />`}
    <form onSubmit=${send} aria-label="Input">
      ${
        chat
          ? html`<label for="message">Message</label>
              <textarea
                id="message"
                rows="2"
                value=${message}
                onInput=${(e) => setMessage(e.currentTarget.value)}
                onKeyDown=${(e) => e.key === "Enter" && !e.shiftKey && (e.preventDefault(), e.currentTarget.form.requestSubmit())}
              ></textarea>`
          : html`${fields.map(
                (f) =>
                  html`<label for=${`field-${f.name}`}>${f.name}</label>
                    <input
                      id=${`field-${f.name}`}
                      type="text"
                      value=${formValues[f.name] ?? ""}
                      placeholder=${f.type && f.type !== "string" ? `${f.type} (JSON)` : ""}
                      onInput=${(e) => setFormValues({ ...formValues, [f.name]: e.currentTarget.value })}
                    />`,
              )}
              <label for="raw-input">Input (JSON)</label>
              <textarea
                id="raw-input"
                placeholder="Overrides the fields above when not empty"
                value=${rawInput}
                onInput=${(e) => setRawInput(e.currentTarget.value)}
              ></textarea>`
      }
      <div class="toolbar">
        <button type="submit" disabled=${Boolean(running)}>Send</button>
        <button type="button" class="danger" disabled=${!running} onClick=${cancel}>Cancel run</button>
        ${running && html`<span role="status">Running${running.runId ? ` ${short(running.runId)}` : ""}…</span>`}
      </div>
    </form>
    <${ErrorNote} error=${error} />
    <${RemoteCalls} calls=${remoteCalls(events, messages, interrupts)} />
    ${
      interrupts.length > 0 &&
      html`<section aria-label="Interrupt">
        <h3>Interrupted</h3>
        ${interrupts.map((i) => html`<${Json} value=${i.value ?? i} label="Interrupt payload" />`)}
        <form onSubmit=${resume}>
          <label for="resume-value">Resume value</label>
          <input id="resume-value" type="text" value=${resumeValue} onInput=${(e) => setResumeValue(e.currentTarget.value)} />
          <label for="resume-command">Command (JSON)</label>
          <textarea
            id="resume-command"
            placeholder='e.g. {"resume": "approved", "update": {}} — overrides the value'
            value=${command}
            onInput=${(e) => setCommand(e.currentTarget.value)}
          ></textarea>
          <button type="submit" disabled=${Boolean(running)}>Resume</button>
        </form>
      </section>`
    }
    ${
      paused &&
      html`<section aria-label="Breakpoint">
        <p>Paused before <strong>${state.next.join(", ")}</strong>.</p>
        <button type="button" disabled=${Boolean(running)} onClick=${() => start({ input: null })}>Continue</button>
      </section>`
    }
    ${
      state &&
      !chat &&
      html`<section aria-label="Values">
        <h3>Values</h3>
        <${Json} value=${state.values} label="State values" />
      </section>`
    }
    <details>
      <summary>Run options: stream modes and breakpoints</summary>
      <fieldset>
        <legend>Stream modes</legend>
        ${MODES.map(
          (m) =>
            html`<label class="inline"
              ><input type="checkbox" checked=${modes.includes(m)} onChange=${() => toggle(modes, setModes, m)} />${m}</label
            >`,
        )}
      </fieldset>
      <fieldset>
        <legend>Breakpoints</legend>
        ${nodes.map(
          (n) =>
            html`<label class="inline"
                ><input type="checkbox" checked=${before.includes(n)} onChange=${() => toggle(before, setBefore, n)} />Before ${n}</label
              >
              <label class="inline"
                ><input type="checkbox" checked=${after.includes(n)} onChange=${() => toggle(after, setAfter, n)} />After ${n}</label
              >`,
        )}
      </fieldset>
    </details>
    <h3 id="events-title">Events</h3>
    <div class="events" role="log" aria-labelledby="events-title">
      ${events.map((e) => html`<div><strong>${e.event}</strong> ${JSON.stringify(e.data).slice(0, 2000)}</div>`)}
    </div>
  </section>`;
}
