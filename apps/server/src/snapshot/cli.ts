import { resolve } from "node:path";
import type { CliOptions } from "../cli/index.js";
import { projectDirOf, readProject } from "../serve/index.js";
import { openStorage } from "../storage/index.js";
import { VERSION } from "../version.js";
import { importDevFolder } from "./dev-import.js";
import { exportSnapshotFile } from "./export.js";
import { importSnapshotFile } from "./import.js";
import { formatExportCounts, formatReport } from "./report.js";

/**
 * `agent-server snapshot export --out FILE`, `snapshot import --in FILE` and `import-dev [DIR]` against
 * the storage the flags select (the same flags and environment as `serve` and `migrate`).
 */
export async function runSnapshotCommand(options: CliOptions, out: (line: string) => void): Promise<void> {
  const project = await readProject(options);
  const opened = await openStorage(options, project?.cwd ?? projectDirOf(options.config), project?.config);
  const { storage } = opened;
  try {
    out(`Storage: ${opened.description}`);
    if (options.command === "import-dev") {
      const dir = resolve(options.devDir ?? ".langgraph_api");
      const report = await importDevFolder(storage, dir);
      out(`Imported ${dir} (${report.files.join(", ")}):`);
      for (const line of formatReport(report)) out(line);
    } else if (options.snapshotAction === "export") {
      const file = resolve(options.snapshotFile!);
      const { cipher } = opened.encryption;
      const counts = await exportSnapshotFile(storage, file, { serverVersion: VERSION, cipher, decrypt: options.snapshotDecrypt === true });
      out(`Exported to ${file}:`);
      for (const line of formatExportCounts(counts)) out(line);
    } else {
      const file = resolve(options.snapshotFile!);
      const report = await importSnapshotFile(storage, file, opened.encryption.cipher);
      const { header } = report;
      out(
        `Imported ${file} (snapshot of ${header.source ?? "a store"} taken ${header.created_at} by agent-server ${header.server_version}):`,
      );
      for (const line of formatReport(report)) out(line);
    }
  } finally {
    await storage.close();
  }
}
