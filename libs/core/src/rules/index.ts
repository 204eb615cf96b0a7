export { ASSISTANT_DEPENDENTS, type AssistantDependent } from "./assistant-cascade.js";
export { checkpointMetadata } from "./checkpoint-metadata.js";
export { ERASED_DELIVERY_STATUSES, erasesDelivery, RUN_DEPENDENTS, type RunDependent } from "./run-cascade.js";
export { copiedCheckpointMetadata, planThreadCopy, type CopiedRun, type CopySourceRun } from "./thread-copy.js";
export {
  addressRefusal,
  checkOutboundUrl,
  classifyAddress,
  domainMatches,
  isIpAddress,
  isRelativeWebhook,
  type AddressClass,
  type OutboundUrlCheck,
  type OutboundUrlPolicy,
} from "./outbound-url.js";
export {
  isExpired,
  isTtlMinutes,
  MAX_TTL_MINUTES,
  threadExpiresAt,
  ttlExpiresAt,
  type ExpiredThread,
  type ThreadTtl,
  type ThreadTtlStrategy,
} from "./ttl.js";
export { turnValues } from "./turn-values.js";
export {
  checkIndexIdentity,
  cosineSimilarity,
  DEFAULT_INDEX_FIELDS,
  indexFieldsFor,
  itemScore,
  storeIndexIdentity,
  textsToEmbed,
  unitVector,
  type IndexIdentityCheck,
  type StoreIndexSettings,
} from "./store-index.js";
export { parseValuesRef, valuesFromCheckpoint, type ThreadValuesRef } from "./thread-values.js";
export { claimOnCreate } from "./claim-on-create.js";
