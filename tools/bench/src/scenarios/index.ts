import { a2aGetTask, a2aSend } from "./a2a.js";
import type { Scenario } from "./scenario.js";
import { sdkLongThread, sdkNewThread, sdkStreamFirstEvent } from "./sdk.js";

export { a2aGetTask, a2aSend, sdkLongThread, sdkNewThread, sdkStreamFirstEvent };
export type { Scenario } from "./scenario.js";

/** Every scenario, in report order. */
export const SCENARIOS: Scenario[] = [sdkNewThread, sdkLongThread, sdkStreamFirstEvent, a2aSend, a2aGetTask];
