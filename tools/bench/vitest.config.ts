import { projectConfig } from "../../vitest.shared.js";

// The smoke test installs the peers (first run) and runs `--quick` end to end: minutes, not seconds.
export default projectConfig(import.meta.dirname, { testTimeout: 420_000 });
