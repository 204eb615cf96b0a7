import type { Storage } from "@agent-server/core";
import type { Engine } from "@agent-server/engine";

/** What every A2A handler, transport and push delivery works over: the engine and its storage. */
export interface A2AHandlerDeps {
  engine: Engine;
  storage: Storage;
}
