import { AlwaysOffSampler, AlwaysOnSampler, ParentBasedSampler, TraceIdRatioBasedSampler, type Sampler } from "@opentelemetry/sdk-trace";
import type { Logger } from "../logger.js";

/**
 * The sampler `OTEL_TRACES_SAMPLER` names (with `OTEL_TRACES_SAMPLER_ARG` for the ratio), as the
 * specification lists them; default `parentbased_always_on`: a caller's sampling decision is kept.
 */
export function samplerFromEnv(env: NodeJS.ProcessEnv, logger: Logger): Sampler {
  const name = (env.OTEL_TRACES_SAMPLER ?? "parentbased_always_on").trim().toLowerCase();
  const ratio = () => {
    const arg = Number(env.OTEL_TRACES_SAMPLER_ARG ?? "1");
    return Number.isFinite(arg) && arg >= 0 && arg <= 1 ? arg : 1;
  };
  switch (name) {
    case "always_on":
      return new AlwaysOnSampler();
    case "always_off":
      return new AlwaysOffSampler();
    case "traceidratio":
      return new TraceIdRatioBasedSampler(ratio());
    case "parentbased_always_on":
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
    case "parentbased_always_off":
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case "parentbased_traceidratio":
      return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(ratio()) });
    default:
      logger.warn({ sampler: name }, `OTEL_TRACES_SAMPLER "${name}" is not supported: using parentbased_always_on`);
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
  }
}
