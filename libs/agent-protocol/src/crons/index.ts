import { createRouter } from "../http/router.js";

/** /runs/crons and /threads/{id}/runs/crons routes. */
export const crons = createRouter();
