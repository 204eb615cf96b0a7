export { traceAdmission, traceExecution, withTraceparent } from "./run-spans.js";
export { graphTracingCallbacks, TracingCallbackHandler } from "./graph-callbacks.js";
export { traceDelivery, withDeliveryTraceparent } from "./delivery-spans.js";
