import { indexFieldsFor, textsToEmbed, type IndexCursor, type StoreRepo, type StoreVector } from "@agent-server/core";
import type { StoreIndex } from "./store-index.js";

export interface ReindexProgress {
  items: number;
  vectors: number;
}

/**
 * Embeds every live item again with `index`'s settings and then records its identity. Items are read in
 * batches of `batchSize` (keyset pages in the driver's key order) and each batch's texts go to the model
 * in one call, so memory holds one batch, never the store. Each item keeps its put's `index` choice
 * (false: no vectors; paths; or the configured fields). An item deleted meanwhile is skipped; one put
 * meanwhile already has new-settings vectors. Run again after an interruption: it starts over, and the
 * identity is recorded only at the end, so queries stay refused until every item was embedded.
 */
export async function reindexStore(
  store: StoreRepo,
  index: StoreIndex,
  options: { batchSize?: number; onBatch?: (progress: ReindexProgress) => void } = {},
): Promise<ReindexProgress> {
  const batchSize = Math.max(1, options.batchSize ?? 100);
  const progress: ReindexProgress = { items: 0, vectors: 0 };
  let cursor: IndexCursor | null = null;
  for (;;) {
    const items = await store.scanIndexable!(cursor, batchSize);
    if (items.length === 0) break;
    const texts = items.map((item) => textsToEmbed(item.value, indexFieldsFor(item.index, index.settings.fields)));
    const flat = texts.flat();
    const vectors = flat.length > 0 ? await index.embedDocuments(flat.map((t) => t.text)) : [];
    let next = 0;
    for (const [i, item] of items.entries()) {
      const own: StoreVector[] = texts[i]!.map((t) => ({ field: t.field, vector: vectors[next++]! }));
      if (await store.replaceVectors!(item.namespace, item.key, own)) {
        progress.items += 1;
        progress.vectors += own.length;
      }
    }
    const last = items[items.length - 1]!;
    cursor = { namespace: last.namespace, key: last.key };
    options.onBatch?.({ ...progress });
  }
  await store.setIndexIdentity!(index.identity);
  index.stale = undefined;
  return progress;
}
