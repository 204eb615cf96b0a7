import { InvalidInputError } from "@agent-server/core";
import { hasVectorSupport, loadEmbedder, reindexStore, StoreIndex, storeIndexSettings } from "@agent-server/engine";
import type { CliOptions } from "./args.js";
import { readProject } from "../serve/index.js";
import { openStorage } from "../storage/index.js";

/** Items per embedding call and per keyset page: one batch is all the command holds in memory. */
const BATCH_SIZE = 100;

/**
 * `agent-server store reindex`: embeds every store item again with the project's langgraph.json
 * `store.index` (its embedder loaded from the project as `dev` loads it), in batches, then records the
 * index identity, so servers started with these settings rank queries again (a running server notices at
 * its next query). Safe to run while servers run: their puts already write vectors with the new settings.
 */
export async function storeReindex(options: CliOptions, out: (line: string) => void): Promise<void> {
  const project = await readProject(options);
  if (!project) throw new InvalidInputError("store reindex needs the project's langgraph.json (--config)");
  const config = project.config.store?.index;
  if (!config) throw new InvalidInputError(`${project.path} has no store.index: there is nothing to index with`);
  const opened = await openStorage(options, project.cwd, project.config);
  try {
    const { store } = opened.storage;
    if (!hasVectorSupport(store)) throw new InvalidInputError(`storage driver "${opened.storage.kind}" has no vector methods`);
    const index = new StoreIndex(storeIndexSettings(config), await loadEmbedder(config.embed, project.cwd));
    out(`Storage: ${opened.description}`);
    const recorded = await store.getIndexIdentity!();
    out(`Index: ${index.identity} (recorded before: ${recorded ?? "none"})`);
    const done = await reindexStore(store, index, {
      batchSize: BATCH_SIZE,
      onBatch: (p) => out(`  ${p.items} items embedded (${p.vectors} vectors)`),
    });
    out(`Re-indexed ${done.items} items (${done.vectors} vectors); the store's index is now ${index.identity}`);
  } finally {
    await opened.storage.close();
  }
}
