/**
 * `agent-server/a2a`: remote A2A agents as nodes and tools of a LangGraph graph, durable across crashes,
 * restarts and hand-backs of the run that calls them (docs/a2a.md, "Calling other agents").
 */
export { remoteAgent, type RemoteAgent } from "./remote-agent.js";
export { RemoteAgentError } from "./errors.js";
export type { RemoteAgentOptions, RetryPolicy, HeadersSource, HeadersCall } from "./options.js";
export type { RemoteQuestion, RemoteRecord } from "./durable-call.js";
export type { JsonPart } from "./content.js";
export type { RemoteTaskState } from "./hooks.js";
