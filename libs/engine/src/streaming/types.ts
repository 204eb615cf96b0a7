/** One event of a run's stream as the graph's execution yields it (`executeGraph`), before it is numbered. */
export interface EmittedEvent {
  event: string;
  data: unknown;
}

/** One event of a run's stream as its subscribers receive it (`StreamHub`, signalled between processes). */
export interface StreamEvent {
  /**
   * What SSE sends as `id:`. Resumable runs: the stored event's id (a client sends it back as
   * `Last-Event-ID`). Other runs: the event's index in the run's stream ("0" for `metadata`), as the
   * official server numbers them; nothing is stored to replay from.
   */
  id?: string;
  event: string;
  data: unknown;
}
