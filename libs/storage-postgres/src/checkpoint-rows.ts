/**
 * Checkpoint writes as the rows they leave behind, so that any number of `put`s and `putWrites` become one
 * statement: a single INSERT per table and conflict rule, the others its data-modifying CTEs (a statement
 * is atomic). Rows are merged as applying the writes one by one would leave them: a blob is kept once (ON
 * CONFLICT DO NOTHING, the first wins), a checkpoint is replaced (the last wins), a pending write is kept
 * once unless a later one of a task's special channels replaces it. Merged, no two rows of the statement
 * share a key: one INSERT may not touch a row twice, and sibling CTEs do not see each other's rows.
 */
export class CheckpointRows {
  private readonly blobs = new Map<string, unknown[]>();
  private readonly checkpoints = new Map<string, unknown[]>();
  private readonly writes = new Map<string, { row: unknown[]; replace: boolean }>();
  /** How many values the statement binds. */
  size = 0;

  /** `(thread_id, checkpoint_ns, channel, version, type, blob)` rows and one `(thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, checkpoint, metadata)`. */
  addPut(blobs: unknown[][], checkpoint: unknown[]): void {
    for (const row of blobs) this.addBlob(keyOf(row, 4), row);
    this.addCheckpoint(keyOf(checkpoint, 3), checkpoint);
  }

  /** `(thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, type, blob)` rows; `replace`: a task's special writes. */
  addWrites(rows: unknown[][], replace: boolean): void {
    for (const row of rows) this.addWrite(keyOf(row, 5), row, replace);
  }

  /** Adds the rows of `later`, as if its writes came after these. */
  addRows(later: CheckpointRows): void {
    for (const [key, row] of later.blobs) this.addBlob(key, row);
    for (const [key, row] of later.checkpoints) this.addCheckpoint(key, row);
    for (const [key, write] of later.writes) this.addWrite(key, write.row, write.replace);
  }

  get empty(): boolean {
    return this.size === 0;
  }

  /**
   * The INSERTs, each with the values it binds appended to `params` (`$n` numbered after those already
   * there): `ctes` to put in a WITH clause, or `statement()` for them as a statement of their own.
   */
  inserts(schema: string, params: unknown[]): string[] {
    const s = `"${schema}"`;
    const inserts: string[] = [];
    const values = (rows: Iterable<unknown[]>) =>
      [...rows].map((row) => `(${row.map((value) => `$${params.push(value)}`).join(", ")})`).join(", ");
    if (this.blobs.size > 0) {
      inserts.push(`INSERT INTO ${s}.checkpoint_blobs (thread_id, checkpoint_ns, channel, version, type, blob)
        VALUES ${values(this.blobs.values())}
        ON CONFLICT (thread_id, checkpoint_ns, channel, version) DO NOTHING`);
    }
    const writes = [...this.writes.values()];
    for (const replace of [false, true]) {
      const rows = writes.filter((write) => write.replace === replace).map((write) => write.row);
      if (rows.length === 0) continue;
      inserts.push(`INSERT INTO ${s}.checkpoint_writes (thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, type, blob)
        VALUES ${values(rows)}
        ON CONFLICT (thread_id, checkpoint_ns, checkpoint_id, task_id, idx) ${
          replace ? "DO UPDATE SET channel = EXCLUDED.channel, type = EXCLUDED.type, blob = EXCLUDED.blob" : "DO NOTHING"
        }`);
    }
    if (this.checkpoints.size > 0) {
      inserts.push(`INSERT INTO ${s}.checkpoints (thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, checkpoint, metadata)
        VALUES ${values(this.checkpoints.values())}
        ON CONFLICT (thread_id, checkpoint_ns, checkpoint_id) DO UPDATE SET checkpoint = EXCLUDED.checkpoint, metadata = EXCLUDED.metadata`);
    }
    return inserts;
  }

  /** All the rows in one statement. */
  statement(schema: string): { text: string; values: unknown[] } {
    const values: unknown[] = [];
    const inserts = this.inserts(schema, values);
    const last = inserts.pop() ?? "SELECT 1";
    const text = inserts.length === 0 ? last : `WITH ${inserts.map((insert, i) => `w${i} AS (${insert})`).join(",\n")}\n${last}`;
    return { text, values };
  }

  private addBlob(key: string, row: unknown[]): void {
    if (this.blobs.has(key)) return;
    this.blobs.set(key, row);
    this.size += row.length;
  }

  private addCheckpoint(key: string, row: unknown[]): void {
    this.size += row.length - (this.checkpoints.get(key)?.length ?? 0);
    this.checkpoints.set(key, row);
  }

  private addWrite(key: string, row: unknown[], replace: boolean): void {
    const earlier = this.writes.get(key);
    if (earlier && !replace) return;
    if (!earlier) this.size += row.length;
    this.writes.set(key, { row, replace });
  }
}

function keyOf(row: unknown[], length: number): string {
  return JSON.stringify(row.slice(0, length));
}
