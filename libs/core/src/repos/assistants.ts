import type { AuthFilter } from "../filters.js";
import type { Assistant, AssistantVersion, Metadata, RunnableConfig, SortOrder } from "../model.js";

export interface NewAssistant {
  assistant_id: string;
  graph_id: string;
  name?: string;
  description?: string | null;
  config?: RunnableConfig;
  context?: unknown;
  metadata?: Metadata;
  /** Defaults to now; set when restoring a snapshot. */
  created_at?: string;
}

export interface AssistantPatch {
  graph_id?: string;
  name?: string;
  description?: string | null;
  config?: RunnableConfig;
  context?: unknown;
  /** Merged into the existing metadata (top-level keys replaced), as the official server does. */
  metadata?: Metadata;
}

export interface AssistantSearch {
  graph_id?: string;
  /** Case-sensitive substring of the name. */
  name?: string;
  /** JSONB containment (`jsonContains`). */
  metadata?: Metadata;
  /** Auth scope (`matchesAuthFilter` on metadata). */
  filter?: AuthFilter;
  limit?: number;
  offset?: number;
  sort_by?: "assistant_id" | "graph_id" | "name" | "created_at" | "updated_at";
  sort_order?: SortOrder;
}

/**
 * Assistants and their versions. Every create and update writes a new immutable version row;
 * the assistant row mirrors the version in effect.
 */
export interface AssistantRepo {
  /**
   * Creates the assistant and its version 1. When the id exists: `ifExists: "raise"` throws
   * `ConflictError`; `"do_nothing"` returns the existing assistant unchanged.
   */
  create(input: NewAssistant, options?: { ifExists?: "raise" | "do_nothing" }): Promise<Assistant>;
  get(assistantId: string): Promise<Assistant | null>;
  /** Writes version max+1 from the current one plus the patch and makes it current; null if unknown. */
  update(assistantId: string, patch: AssistantPatch): Promise<Assistant | null>;
  /**
   * Deletes the assistant with what core's assistant cascade takes along (`ASSISTANT_DEPENDENTS`: its
   * versions and crons), atomically. Its runs stay, with their results: they belong to their threads.
   */
  delete(assistantId: string): Promise<boolean>;
  /** Default order: created_at desc. limit defaults to 10, offset to 0. */
  search(query: AssistantSearch): Promise<Assistant[]>;
  count(query: Omit<AssistantSearch, "limit" | "offset" | "sort_by" | "sort_order">): Promise<number>;
  /** Newest version first. */
  listVersions(assistantId: string, query?: { metadata?: Metadata; limit?: number; offset?: number }): Promise<AssistantVersion[]>;
  /** Makes an existing version current; null if the assistant or the version does not exist. */
  setLatest(assistantId: string, version: number): Promise<Assistant | null>;
}
