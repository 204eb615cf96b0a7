// A chat page as a frontend writes it with @langchain/react's `useStream` (v2: the thread streaming
// protocol, POST /threads/{id}/commands and /stream/events), bundled for the browser by esbuild at test
// time (see page-server.ts) and served from another origin than the agent server. The test mounts it
// with `mountChat(apiUrl)`, drives it through its DOM like a user, and reads `chatLog`, what each
// render committed, because a DOM read afterwards cannot tell streamed tokens from a message that
// arrived whole.
import { useStream } from "@langchain/react";
import { useEffect, useState, type FormEvent } from "react";
import { createRoot } from "react-dom/client";

interface ChatSnapshot {
  isLoading: boolean;
  /** Each message as the page rendered it: its type and its text so far. */
  messages: { type: string; text: string }[];
  /** The payload of the pending interrupt, if any. */
  interrupt?: unknown;
}

interface ChatLog {
  /** One entry per render that changed something the user sees, in order. */
  snapshots: ChatSnapshot[];
  threadId: string | null;
  /** Errors the hook reported (`stream.error`) and `respond()` / `submit()` rejections. */
  errors: string[];
}

const chatLog: ChatLog = { snapshots: [], threadId: null, errors: [] };

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

function Chat({ apiUrl }: { apiUrl: string }) {
  const stream = useStream<{ messages: unknown[] }, { question: string }>({ apiUrl, assistantId: "chatty" });
  const [draft, setDraft] = useState("");
  const [answer, setAnswer] = useState("");
  const messages = stream.messages.map((m) => ({ type: m.type, text: m.text }));
  const question = stream.interrupt?.value?.question;

  const snapshot: ChatSnapshot = { isLoading: stream.isLoading, messages, interrupt: stream.interrupt?.value };
  const key = JSON.stringify(snapshot);
  useEffect(() => {
    chatLog.snapshots.push(JSON.parse(key) as ChatSnapshot);
  }, [key]);
  useEffect(() => {
    chatLog.threadId = stream.threadId;
  }, [stream.threadId]);
  useEffect(() => {
    if (stream.error != null) chatLog.errors.push(describe(stream.error));
  }, [stream.error]);

  const send = (event: FormEvent) => {
    event.preventDefault();
    stream.submit({ messages: [{ type: "human", content: draft }] }).catch((e: unknown) => chatLog.errors.push(describe(e)));
    setDraft("");
  };
  const reply = (event: FormEvent) => {
    event.preventDefault();
    stream.respond(answer).catch((e: unknown) => chatLog.errors.push(describe(e)));
    setAnswer("");
  };

  return (
    <main>
      <ol id="messages">
        {messages.map((m, i) => (
          <li key={i} data-type={m.type}>
            {m.text}
          </li>
        ))}
      </ol>
      {question != null && (
        <form id="interrupt" onSubmit={reply}>
          <p id="question">{question}</p>
          <input id="answer" value={answer} onChange={(e) => setAnswer(e.target.value)} />
          <button type="submit">Answer</button>
        </form>
      )}
      <form id="composer" onSubmit={send}>
        <input id="draft" value={draft} onChange={(e) => setDraft(e.target.value)} />
        <button type="submit" disabled={stream.isLoading}>
          Send
        </button>
      </form>
      <p id="status">{stream.isLoading ? "running" : "idle"}</p>
    </main>
  );
}

/** Renders the chat against the agent server at `apiUrl` (the page cannot know its port beforehand). */
function mountChat(apiUrl: string): void {
  const container = document.createElement("div");
  document.body.append(container);
  createRoot(container).render(<Chat apiUrl={apiUrl} />);
}

Object.assign(globalThis, { mountChat, chatLog });
