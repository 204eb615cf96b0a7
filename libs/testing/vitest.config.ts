import { projectConfig } from "../../vitest.shared.js";

export default projectConfig(import.meta.dirname, { globalSetup: ["src/postgres/global-setup.ts"] });
