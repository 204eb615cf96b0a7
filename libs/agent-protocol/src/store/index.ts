import { createRouter } from "../http/router.js";

/** /store routes. */
export const store = createRouter();
