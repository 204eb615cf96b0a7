import { Component, h } from "preact";
import htm from "htm";

export const html = htm.bind(h);

/** A thrown error (ApiError or any other) as the message a user reads. */
export function errorText(error) {
  if (!error) return "";
  return error.message || String(error);
}

/** An error shown where it happened, announced to screen readers. */
export function ErrorNote({ error }) {
  if (!error) return null;
  return html`<div class="error" role="alert">${errorText(error)}</div>`;
}

export function Json({ value, label }) {
  return html`<pre aria-label=${label}>${JSON.stringify(value, null, 2)}</pre>`;
}

export const short = (id) => (typeof id === "string" ? id.slice(0, 8) : String(id));

/** Checkpoint ids are time-ordered (uuid6): their first characters repeat, their last ones tell them apart. */
export const tail = (id) => (typeof id === "string" ? `…${id.slice(-8)}` : String(id));

/** Parses the JSON a user typed; an empty field is `fallback`. Throws an Error naming the field. */
export function parseJson(text, field, fallback = undefined) {
  if (text.trim() === "") return fallback;
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new Error(`${field} is not valid JSON: ${error.message}`, { cause: error });
  }
}

/** Runs an async action and reports failure with `setError`; returns its value, or undefined. */
export async function attempt(setError, action) {
  setError(undefined);
  try {
    return await action();
  } catch (error) {
    setError(error);
    return undefined;
  }
}

/** The text of a LangChain message's content (a string or a list of content blocks). */
export function messageText(message) {
  const content = message?.content ?? message?.kwargs?.content;
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((b) => (typeof b === "string" ? b : (b?.text ?? ""))).join("");
  return content === undefined ? "" : JSON.stringify(content);
}

/** A message's role: human, ai, tool or system. */
export function messageRole(message) {
  const type = message?.type ?? message?.role ?? message?.id?.at?.(-1) ?? "";
  const t = String(type).toLowerCase();
  if (t.includes("human") || t === "user") return "human";
  if (t.includes("ai") || t === "assistant") return "ai";
  if (t.includes("tool")) return "tool";
  if (t.includes("system")) return "system";
  return t || "message";
}

/** Keeps a pane's rendering failure inside the pane: an alert with the error instead of a blank page. */
export class ErrorBoundary extends Component {
  constructor(props) {
    super(props);
    this.state = { error: undefined };
  }
  static getDerivedStateFromError(error) {
    return { error };
  }
  componentDidUpdate(previous) {
    if (previous.resetKey !== this.props.resetKey && this.state.error) this.setState({ error: undefined });
  }
  render() {
    if (this.state.error) return html`<div class="error" role="alert">This view failed to render: ${errorText(this.state.error)}</div>`;
    return this.props.children;
  }
}
