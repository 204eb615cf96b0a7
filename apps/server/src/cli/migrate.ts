import type { CliOptions } from "./args.js";
import { projectDirOf, readProject } from "../serve/index.js";
import { openStorage } from "../storage/index.js";

/**
 * `agent-server migrate`: opens the selected storage, which applies its pending migrations, prints what
 * was applied, and closes it. Run it before starting several `serve` processes on a new database (each
 * would also migrate on start; migrations take a lock, so racing starts are safe too).
 */
export async function migrate(options: CliOptions, out: (line: string) => void): Promise<void> {
  const project = await readProject(options);
  const opened = await openStorage(options, project?.cwd ?? projectDirOf(options.config), project?.config);
  try {
    out(`Storage: ${opened.description}`);
    if (opened.kind === "memory") out("The memory storage has no schema: nothing to migrate.");
    else if (opened.kind === "custom") out("A custom driver applies its own migrations when it opens: nothing more to do.");
    else if (opened.applied.length === 0) out("Schema is up to date: no migration applied.");
    else out(`Applied ${opened.applied.length} migration(s): ${opened.applied.join(", ")}`);
  } finally {
    await opened.storage.close();
  }
}
