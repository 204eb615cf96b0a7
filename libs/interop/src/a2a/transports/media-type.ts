/** The HTTP+JSON binding's own media type (A2A v1.0.1, section 11.1: SHOULD be used for requests and responses). */
export const A2A_CONTENT_TYPE = "application/a2a+json";
/** Plain JSON, which v1.0 clients sent and expected before the A2A media type; still accepted and served. */
export const JSON_CONTENT_TYPE = "application/json";

export type HttpJsonMediaType = typeof A2A_CONTENT_TYPE | typeof JSON_CONTENT_TYPE;

/** Whether a request's Content-Type (parameters such as `charset` aside) is one the binding reads. */
export function readableContentType(contentType: string): boolean {
  const mediaType = contentType.split(";", 1)[0]!.trim().toLowerCase();
  return mediaType === JSON_CONTENT_TYPE || mediaType === A2A_CONTENT_TYPE;
}

/**
 * The media type to answer a request with, from its `Accept` header: `application/a2a+json` unless the
 * client prefers `application/json`. Each type gets the quality of the most specific range that names
 * it (`type/subtype`, then `application/*`, then `*\/*`); the higher quality wins, then the more specific
 * range (a client that names `application/json` and adds `*\/*` as a fallback asked for JSON), then the
 * A2A type. No header, or one that accepts neither (`text/html`), answers the A2A type: a JSON body is all
 * this binding has, and refusing with 406 would help no client.
 */
export function responseMediaType(accept: string | null): HttpJsonMediaType {
  if (!accept) return A2A_CONTENT_TYPE;
  const ranges = accept
    .split(",")
    .map((entry) => acceptRange(entry))
    .filter((range) => range !== undefined);
  const a2a = preference(ranges, A2A_CONTENT_TYPE);
  const json = preference(ranges, JSON_CONTENT_TYPE);
  if (json.quality > a2a.quality) return JSON_CONTENT_TYPE;
  if (json.quality === a2a.quality && json.quality > 0 && json.specificity > a2a.specificity) return JSON_CONTENT_TYPE;
  return A2A_CONTENT_TYPE;
}

interface AcceptRange {
  type: string;
  subtype: string;
  quality: number;
}

function acceptRange(entry: string): AcceptRange | undefined {
  const [range, ...parameters] = entry.split(";");
  const [type, subtype] = (range ?? "").trim().toLowerCase().split("/");
  if (!type || !subtype) return undefined;
  let quality = 1;
  for (const parameter of parameters) {
    const [name, value] = parameter.split("=").map((part) => part.trim());
    if (name?.toLowerCase() !== "q") continue;
    const parsed = Number(value);
    quality = Number.isFinite(parsed) ? Math.min(Math.max(parsed, 0), 1) : 0;
  }
  return { type, subtype, quality };
}

/** The quality `mediaType` gets from the most specific range matching it (2 exact, 1 `type/*`, 0 `*\/*`; -1 none). */
function preference(ranges: AcceptRange[], mediaType: HttpJsonMediaType): { quality: number; specificity: number } {
  const [type, subtype] = mediaType.split("/") as [string, string];
  let best = { quality: 0, specificity: -1 };
  for (const range of ranges) {
    const specificity =
      range.type === type && range.subtype === subtype ? 2 : range.type === type && range.subtype === "*" ? 1 : range.type === "*" ? 0 : -1;
    if (specificity > best.specificity) best = { quality: range.quality, specificity };
  }
  return best;
}
