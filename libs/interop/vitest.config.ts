import { projectConfig } from "../../vitest.shared.js";

export default projectConfig(import.meta.dirname, {
  globalSetup: ["../storage-postgres/src/testing/global-setup.ts"],
});
