import { projectConfig } from "../../vitest.shared.js";

/** Tests live in test/, beside src/: what ships (src/) holds no test tooling. */
export default projectConfig(import.meta.dirname, { include: ["test/**/*.test.ts"] });
