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

/**
 * A thread could not be created because its id is taken (`RunRepo.createWithThread`): a conflict, told
 * apart from the run's own conflicts (a taken run id, an active run) so a caller creating the thread only
 * if missing (`if_not_exists: "create"`) can take the existing thread instead.
 */
export class ThreadExistsError extends ConflictError {}

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
