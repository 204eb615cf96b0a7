export { traceAdmission, traceExecution, withTraceparent } from "./run-spans.js";
export { TracingCallbackHandler } from "./graph-callbacks.js";
export { CALLBACK_PROBE_EVERY, graphTracing, type GraphTracing } from "./graph-tracing.js";
export { traceDelivery, withDeliveryTraceparent } from "./delivery-spans.js";
