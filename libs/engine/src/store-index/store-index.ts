import {
  checkIndexIdentity,
  ConflictError,
  indexFieldsFor,
  storeIndexIdentity,
  textsToEmbed,
  unitVector,
  UpstreamError,
  type StoreIndexer,
  type StoreIndexSettings,
  type StoreRepo,
  type StoreVector,
} from "@agent-server/core";
import type { Embedder } from "./embeddings.js";

/** The CLI command that rebuilds every vector with the configured settings. */
export const REINDEX_COMMAND = "agent-server store reindex";

/**
 * langgraph.json `store.index` at work: embeds a put's texts (one call per put) and a search's query,
 * checks what the model answers (count, dims, numbers) and hands drivers unit vectors. When the database
 * was indexed with other settings (`stale`), queries are refused with a 409 naming the re-index command
 * rather than ranked against vectors of another model or size; puts still write vectors with the new
 * settings, which the re-index keeps.
 */
export class StoreIndex implements StoreIndexer {
  readonly identity: string;
  /** Set by `checkIdentity` when the database's vectors were made with other settings. */
  stale: { recorded: string | null } | undefined;
  private store: StoreRepo | undefined;

  constructor(
    readonly settings: StoreIndexSettings,
    private readonly embedder: Embedder,
  ) {
    this.identity = storeIndexIdentity(settings);
  }

  async vectorsFor(value: Record<string, unknown>, index?: false | string[] | null): Promise<StoreVector[]> {
    const texts = textsToEmbed(value, indexFieldsFor(index, this.settings.fields));
    if (texts.length === 0) return [];
    const vectors = await this.embedDocuments(texts.map((t) => t.text));
    return texts.map((t, i) => ({ field: t.field, vector: vectors[i]! }));
  }

  /** Unit vectors of `texts`, one call; a failing or malformed answer is an `UpstreamError` (502). */
  async embedDocuments(texts: string[]): Promise<number[][]> {
    const vectors = await this.call(() => this.embedder.embedDocuments(texts));
    if (!Array.isArray(vectors) || vectors.length !== texts.length) {
      const got = Array.isArray(vectors) ? `${vectors.length} vectors` : "no array";
      throw new UpstreamError(`store.index: the embedding model answered ${got} for ${texts.length} texts`);
    }
    return vectors.map((v, i) => this.unit(v, `the embedding of text ${i + 1}`));
  }

  async queryVector(query: string): Promise<number[]> {
    // A re-index run meanwhile (another process) recorded this identity: one row read, then ranked again.
    if (this.stale && (await this.store?.getIndexIdentity!()) === this.identity) this.stale = undefined;
    if (this.stale) throw new ConflictError(this.staleMessage());
    return this.unit(await this.call(() => this.embedder.embedQuery(query)), "the query's embedding");
  }

  /**
   * Compares the database's recorded identity with this one. Unknown to an empty store: recorded now.
   * Otherwise a difference (or items stored before any identity was recorded) marks the index stale.
   */
  async checkIdentity(store: StoreRepo): Promise<"same" | "new" | "stale"> {
    this.store = store;
    const recorded = await store.getIndexIdentity!();
    const hasItems = recorded === this.identity ? true : (await store.scanIndexable!(null, 1)).length > 0;
    const check = checkIndexIdentity(recorded, this.identity, hasItems);
    if (check.status === "new") await store.setIndexIdentity!(this.identity);
    this.stale = check.status === "stale" ? { recorded: check.recorded } : undefined;
    return check.status;
  }

  staleMessage(): string {
    const recorded = this.stale?.recorded;
    const was = recorded ? `were made with ${recorded}` : "were stored before store.index was configured";
    return `store.index changed: the store's vectors ${was}, langgraph.json now says ${this.identity}; run \`${REINDEX_COMMAND} --config <langgraph.json>\` to embed every item again before searching with a query`;
  }

  private unit(vector: unknown, what: string): number[] {
    try {
      return unitVector(vector, this.settings.dims, what);
    } catch (error) {
      throw new UpstreamError(`store.index (${this.settings.embed}): ${(error as Error).message}`);
    }
  }

  private async call<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (error) {
      throw new UpstreamError(
        `store.index: the embedding model (${this.settings.embed}) failed: ${(error as Error)?.message ?? String(error)}`,
      );
    }
  }
}

/** A driver can hold vectors when it has the four optional vector methods (conformance part `vectors`). */
export function hasVectorSupport(store: StoreRepo): boolean {
  return Boolean(store.getIndexIdentity && store.setIndexIdentity && store.scanIndexable && store.replaceVectors);
}
