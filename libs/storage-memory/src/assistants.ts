import {
  ConflictError,
  jsonContains,
  matchesAuthFilter,
  nowIso,
  type Assistant,
  type AssistantPatch,
  type AssistantRepo,
  type AssistantSearch,
  type AssistantVersion,
  type Metadata,
  type NewAssistant,
} from "@agent-server/core";
import { page, sortRecords, wireIn, wireObject, wireOut, type AssistantRecord, type MemoryState } from "./state.js";

export class MemoryAssistantRepo implements AssistantRepo {
  constructor(private readonly state: MemoryState) {}

  async create(input: NewAssistant, options?: { ifExists?: "raise" | "do_nothing" }): Promise<Assistant> {
    // Normalize before checking, so a bad value throws without side effects.
    const now = input.created_at ?? nowIso();
    const version: AssistantVersion = {
      assistant_id: input.assistant_id,
      version: 1,
      graph_id: input.graph_id,
      name: input.name ?? "Untitled",
      description: input.description ?? null,
      config: wireObject(input.config, {}),
      context: wireIn(input.context),
      metadata: wireObject(input.metadata, {}),
      created_at: now,
    };
    const existing = this.state.assistants.get(input.assistant_id);
    if (existing) {
      if (options?.ifExists === "do_nothing") return wireOut(existing.assistant);
      throw new ConflictError(`assistant ${input.assistant_id} already exists`);
    }
    const record: AssistantRecord = {
      assistant: fromVersion(version, now, now),
      seq: this.state.nextSeq(),
      versions: [version],
    };
    this.state.assistants.set(input.assistant_id, record);
    return wireOut(record.assistant);
  }

  async get(assistantId: string): Promise<Assistant | null> {
    const record = this.state.assistants.get(assistantId);
    return record ? wireOut(record.assistant) : null;
  }

  async update(assistantId: string, patch: AssistantPatch): Promise<Assistant | null> {
    const record = this.state.assistants.get(assistantId);
    if (!record) return null;
    const current = record.assistant;
    const now = nowIso();
    const maxVersion = record.versions.reduce((max, v) => Math.max(max, v.version), 0);
    const version: AssistantVersion = {
      assistant_id: assistantId,
      version: maxVersion + 1,
      graph_id: patch.graph_id ?? current.graph_id,
      name: patch.name ?? current.name,
      description: patch.description !== undefined ? patch.description : current.description,
      config: patch.config !== undefined ? wireObject(patch.config, {}) : wireOut(current.config),
      context: patch.context !== undefined ? wireIn(patch.context) : wireOut(current.context),
      metadata: { ...wireOut(current.metadata), ...wireObject(patch.metadata, {}) },
      created_at: now,
    };
    record.versions.push(version);
    record.assistant = fromVersion(version, current.created_at, now);
    return wireOut(record.assistant);
  }

  async delete(assistantId: string): Promise<boolean> {
    return this.state.removeAssistant(assistantId);
  }

  /** O(assistants) scan, then a sort of the matches. */
  async search(query: AssistantSearch): Promise<Assistant[]> {
    const field = query.sort_by ?? "created_at";
    const matches = sortRecords(this.matching(query), (r) => r.assistant[field], query.sort_order ?? "desc");
    return page(matches, query.offset, query.limit, 10).map((r) => wireOut(r.assistant));
  }

  async count(query: Omit<AssistantSearch, "limit" | "offset" | "sort_by" | "sort_order">): Promise<number> {
    return this.matching(query).length;
  }

  /** O(versions of the assistant). */
  async listVersions(assistantId: string, query?: { metadata?: Metadata; limit?: number; offset?: number }): Promise<AssistantVersion[]> {
    const record = this.state.assistants.get(assistantId);
    if (!record) return [];
    const versions = record.versions
      .filter((v) => !query?.metadata || jsonContains(v.metadata, query.metadata))
      .sort((a, b) => b.version - a.version);
    return page(versions, query?.offset, query?.limit, 10).map((v) => wireOut(v));
  }

  async setLatest(assistantId: string, version: number): Promise<Assistant | null> {
    const record = this.state.assistants.get(assistantId);
    const target = record?.versions.find((v) => v.version === version);
    if (!record || !target) return null;
    record.assistant = fromVersion(target, record.assistant.created_at, nowIso());
    return wireOut(record.assistant);
  }

  private matching(query: Omit<AssistantSearch, "limit" | "offset" | "sort_by" | "sort_order">): AssistantRecord[] {
    return [...this.state.assistants.values()].filter(({ assistant: a }) => {
      if (query.graph_id !== undefined && a.graph_id !== query.graph_id) return false;
      if (query.name !== undefined && !a.name.toLowerCase().includes(query.name.toLowerCase())) return false;
      if (query.metadata && !jsonContains(a.metadata, query.metadata)) return false;
      return matchesAuthFilter(a.metadata, query.filter);
    });
  }
}

function fromVersion(version: AssistantVersion, createdAt: string, updatedAt: string): Assistant {
  return {
    assistant_id: version.assistant_id,
    graph_id: version.graph_id,
    name: version.name,
    description: version.description,
    config: wireOut(version.config),
    context: wireOut(version.context),
    metadata: wireOut(version.metadata),
    version: version.version,
    created_at: createdAt,
    updated_at: updatedAt,
  };
}
