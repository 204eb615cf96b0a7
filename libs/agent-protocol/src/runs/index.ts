import { createRouter } from "../http/router.js";

/** Thread runs (/threads/{id}/runs...), stateless runs (/runs...), bulk cancel. */
export const runs = createRouter();
