import { projectConfig } from "../../vitest.shared.js";

// Each browser test starts real `agent-server` processes and a headless Chromium: seconds, not milliseconds.
export default projectConfig(import.meta.dirname, { testTimeout: 120_000, hookTimeout: 120_000 });
