import { createRouter } from "../http/router.js";

/** /assistants routes. */
export const assistants = createRouter();
