export { checkpointMetadata } from "./checkpoint-metadata.js";
