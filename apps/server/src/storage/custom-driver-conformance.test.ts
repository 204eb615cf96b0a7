import { describeStorageConformance } from "@agent-server/storage-conformance";
import { createStorage } from "../../test/support/fixture-project/driver-without-results.js";

// How a third party tests its own driver (docs/storage.md, "Custom drivers"): the whole contract suite,
// with the optional parts this driver leaves out declared, so the suite checks they are really absent.
describeStorageConformance(
  "custom driver without results",
  { create: async () => createStorage({ projectDir: process.cwd(), dataDir: ".agent-server" }) },
  {
    results: false,
    pushConfigs: false,
    threadLock: false,
    signals: false,
    ttl: true,
    vectors: true,
    valuesAt: false,
    claimOnCreate: false,
  },
);
