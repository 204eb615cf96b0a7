import { projectConfig } from "../../vitest.shared.js";

export default projectConfig(import.meta.dirname, {
  globalSetup: ["../../libs/storage-postgres/src/testing/global-setup.ts"],
});
