/** The server's tracing, once started: `shutdown` exports what is still buffered and turns it off. */
export interface Tracing {
  shutdown(): Promise<void>;
}
