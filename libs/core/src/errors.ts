/**
 * Typed errors that cross layer boundaries. The HTTP layer maps them to status codes
 * (NotFound -> 404, Conflict -> 409, InvalidInput -> 422, Upstream -> 502); nothing else should need `instanceof Error` sniffing.
 */
export class AgentServerError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

export class NotFoundError extends AgentServerError {}

export class ConflictError extends AgentServerError {}

export class InvalidInputError extends AgentServerError {}

/**
 * A service the server calls for a request failed or answered something unusable (langgraph.json
 * `store.index`'s embeddings: an error, or vectors of the wrong size). The HTTP layer answers 502 with
 * the message: the request was fine, the server's dependency was not.
 */
export class UpstreamError extends AgentServerError {}

/** A value cannot be represented as the JSON the HTTP API emits. `path` points at the offending member. */
export class WireSerializationError extends AgentServerError {
  constructor(
    message: string,
    readonly path: string,
  ) {
    super(`${message} at ${path}`);
  }
}
