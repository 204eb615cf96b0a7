import fc from "fast-check";

/** A generated value with the name of its input class, for the failure groups and the report. */
export interface Labeled<T> {
  value: T;
  label: string;
}

/** JSON text spliced into a body as is: nesting deeper than JSON.stringify would survive, `1e999`. */
export class RawJson {
  constructor(readonly text: string) {}
}

/**
 * A JSON object whose keys may be `__proto__`/`constructor` as own keys: objects are built without a
 * prototype, so `obj["__proto__"] = x` is a plain property and `toJsonText` writes it like any other.
 */
export function jsonObject(entries: [string, unknown][] = []): Record<string, unknown> {
  const object = Object.create(null) as Record<string, unknown>;
  for (const [key, value] of entries) object[key] = value;
  return object;
}

/** Serializes a generated value: `RawJson` spliced verbatim, everything else as JSON.stringify would. */
export function toJsonText(value: unknown): string {
  if (value instanceof RawJson) return value.text;
  if (value === undefined) return "null";
  if (Array.isArray(value)) return `[${value.map(toJsonText).join(",")}]`;
  if (typeof value === "object" && value !== null) {
    return `{${Object.keys(value)
      .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
      .map((key) => `${JSON.stringify(key)}:${toJsonText((value as Record<string, unknown>)[key])}`)
      .join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/** `depth` levels of arrays or objects as JSON text (3000 is what the issue's hostile session sent). */
export function deepNesting(depth: number, kind: "array" | "object"): RawJson {
  return kind === "array"
    ? new RawJson("[".repeat(depth) + "]".repeat(depth))
    : new RawJson('{"a":'.repeat(depth) + "1" + "}".repeat(depth));
}

const constants: [string, unknown][] = [
  ["null", null],
  ["true", true],
  ["0", 0],
  ["-1", -1],
  ["9e12", 9e12],
  ["-9e12", -9e12],
  ["1e308", 1e308],
  ["1e999 literal", new RawJson("1e999")],
  ["-1e999 literal", new RawJson("-1e999")],
  ["2^53+1", 2 ** 53 + 1],
  ["1.5", 1.5],
  ['"NaN"', "NaN"],
  ['"Infinity"', "Infinity"],
  ['"-1"', "-1"],
  ['"9e12"', "9e12"],
  ['""', ""],
  ['" "', " "],
  ["NUL string", "\u0000"],
  ["embedded NUL", "a\u0000b"],
  ["lone surrogate", "\ud800x"],
  ["path traversal", "../../etc/passwd"],
  ["encoded traversal", "%2e%2e%2f%2e%2e%2f"],
  ["SQL quote", "' OR '1'='1' --"],
  ["LIKE wildcard", "%_%"],
  ["JSON path", "$.a[0]"],
  ["__proto__ string", "__proto__"],
  ["empty object", {}],
  ["empty array", []],
  ["array of null", [null]],
  ["nested empty arrays", [[[]]]],
  ["$gt operator", jsonObject([["$gt", ""]])],
  ["$ne operator", jsonObject([["$ne", null]])],
  ["$contains operator", jsonObject([["$contains", "x"]])],
  ["__proto__ object", jsonObject([["__proto__", jsonObject([["polluted", true]])]])],
  ["constructor.prototype object", jsonObject([["constructor", jsonObject([["prototype", jsonObject([["polluted", true]])]])]])],
  ["depth 3000 arrays", deepNesting(3000, "array")],
  ["depth 3000 objects", deepNesting(3000, "object")],
  ["depth 100 arrays", deepNesting(100, "array")],
];

/** A hostile JSON value: wrong types, edge numbers, NaN-ish and special strings, operators, pollution keys, nesting. */
export const hostileValue: fc.Arbitrary<Labeled<unknown>> = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...constants).map(([label, value]) => ({ label, value })) },
  { weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 40 }).map((value) => ({ label: "unicode string", value })) },
  { weight: 1, arbitrary: fc.integer().map((value) => ({ label: "integer", value })) },
  {
    weight: 1,
    arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true }).map((value) => ({ label: "double", value })),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom(10_000, 200_000).map((n) => ({ label: `string of ${n} chars`, value: "x".repeat(n) })),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom(1_000, 50_000).map((n) => ({ label: `array of ${n} items`, value: new RawJson(`[${"1,".repeat(n)}1]`) })),
  },
);

/** A whole request body that is not the JSON object a route expects. */
export const rawBody: fc.Arbitrary<Labeled<string | undefined>> = fc
  .constantFrom<[string, string | undefined]>(
    ["no body", undefined],
    ["empty body", ""],
    ["invalid JSON", "{"],
    ["single-quoted JSON", "{'a': 1}"],
    ["trailing garbage", '{"a":1} x'],
    ["JSON null", "null"],
    ["JSON number", "42"],
    ["JSON string", '"x"'],
    ["JSON array", "[]"],
    ["byte order mark", '\ufeff{"a":1}'],
    ["duplicate keys", '{"limit":1,"limit":"x"}'],
    ["1e999 body", "1e999"],
    ["depth 3000 body", deepNesting(3000, "array").text],
    ["depth 100000 body", deepNesting(100_000, "array").text],
    ["whitespace only", " \n\t "],
    ["form encoded", "a=1&b=2"],
  )
  .map(([label, value]) => ({ label: `raw=${label}`, value }));

/** Content types around a JSON body; `undefined` sends none. */
export const contentType: fc.Arbitrary<Labeled<string | undefined>> = fc.oneof(
  { weight: 12, arbitrary: fc.constant({ label: "", value: "application/json" as string | undefined }) },
  {
    weight: 3,
    arbitrary: fc
      .constantFrom<string | undefined>(
        undefined,
        "text/plain",
        "application/json; charset=utf-16",
        "application/x-www-form-urlencoded",
        "multipart/form-data; boundary=x",
        "application/xml",
        "application/json, text/plain",
        "",
      )
      .map((value) => ({ label: `content-type=${value === undefined ? "none" : JSON.stringify(value)}`, value })),
  },
);

/** A path segment that is not an id: traversal, encoded slashes, NUL, bad escapes, very long, unicode. */
export const hostileSegment: fc.Arbitrary<Labeled<string>> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc
      .constantFrom<[string, string]>(
        ["..", ".."],
        [".", "."],
        ["encoded ..", "%2e%2e"],
        ["encoded slash", "a%2Fb"],
        ["encoded traversal", "..%2F..%2Fetc%2Fpasswd"],
        ["encoded NUL", "%00"],
        ["bad escape", "%ZZ"],
        ["lone %", "%"],
        ["uuid with NUL", "00000000-0000-0000-0000-000000000000%00"],
        ["nil uuid", "00000000-0000-0000-0000-000000000000"],
        ["uppercase uuid", "6BA7B810-9DAD-11D1-80B4-00C04FD430C8"],
        ["braced uuid", "%7B6ba7b810-9dad-11d1-80b4-00c04fd430c8%7D"],
        ["number", "1"],
        ["-1", "-1"],
        ["__proto__", "__proto__"],
        ["constructor", "constructor"],
        ["null", "null"],
        ["graph name", "echo"],
        ["very long", "a".repeat(5000)],
        ["quote", "%22%27"],
        ["semicolon verb", "x:cancel"],
      )
      .map(([label, value]) => ({ label, value })),
  },
  {
    weight: 1,
    arbitrary: fc.string({ unit: "binary", minLength: 1, maxLength: 20 }).map((s) => ({ label: "unicode", value: encodeURIComponent(s) })),
  },
);

/**
 * Every URL the server might fetch (webhooks, push notification configs) points at this machine: the
 * harness's own sink, a closed port, or non-http schemes. No generated request may make the server reach
 * out to another host.
 */
export function urlValue(sinkUrl: string): fc.Arbitrary<Labeled<string>> {
  const sink = new URL(sinkUrl);
  return fc
    .constantFrom<[string, string]>(
      ["loopback sink", `${sinkUrl}/hook`],
      ["closed loopback port", "http://127.0.0.1:1/hook"],
      ["IPv6 loopback", `http://[::1]:${sink.port}/hook`],
      ["protocol-relative loopback", `//127.0.0.1:${sink.port}/hook`],
      ["relative path", "/ok"],
      ["relative unknown path", "/hooks/none"],
      ["file scheme", "file:///etc/passwd"],
      ["javascript scheme", "javascript:alert(1)"],
      ["no scheme", "not a url"],
      ["credentials in URL", `http://user:pass@127.0.0.1:${sink.port}/hook`],
      ["metadata-style path on loopback", `http://127.0.0.1:${sink.port}/latest/meta-data/`],
    )
    .map(([label, value]) => ({ label: `url=${label}`, value }));
}

/**
 * The safety net behind `urlValue`: any other absolute http(s)/ws URL a mutation produced is rewritten to
 * the loopback sink before sending.
 */
export function confineUrls(text: string, sinkUrl: string): string {
  return text.replace(/\b(?:https?|wss?):\/\/[^\s"\\/]+/gi, (match) => {
    const host = match.replace(/^[a-z]+:\/\/(?:[^@]*@)?/i, "").replace(/:\d+$/, "");
    return host === "127.0.0.1" || host === "localhost" || host === "[::1]" ? match : sinkUrl;
  });
}
