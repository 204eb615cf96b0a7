import type { ScaffoldOptions } from "../cli/index.js";
import { writeCompose } from "./compose.js";
import { writeDockerfile } from "./dockerfile.js";
import { writeNewProject } from "./new-project.js";

export { writeGeneratedFiles, type GeneratedFile } from "./files.js";
export { newProjectFiles } from "./new-project.js";

/**
 * `new`, `dockerfile`, `compose`: files written into the user's project, nothing started. A refusal (a
 * folder that is not empty, a file that exists without --force, no langgraph.json) is an
 * InvalidInputError, which main reports in one line with exit 2.
 */
export function runScaffoldCommand(options: ScaffoldOptions, out: (line: string) => void): void {
  switch (options.command) {
    case "new":
      return writeNewProject(options.dir!, out);
    case "dockerfile":
      return writeDockerfile(options, out);
    case "compose":
      return writeCompose(options, out);
  }
}
