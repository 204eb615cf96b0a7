import { createRouter } from "../http/router.js";
import { assistantCrud } from "./crud.js";
import { assistantGraphRoutes } from "./graph.js";
import { assistantSearch } from "./search.js";
import { assistantVersions } from "./versions.js";

/**
 * /assistants routes. Search and count come before the `{assistant_id}` routes so their literal paths
 * are never read as ids.
 */
export const assistants = createRouter()
  .route("/", assistantSearch)
  .route("/", assistantCrud)
  .route("/", assistantVersions)
  .route("/", assistantGraphRoutes);
