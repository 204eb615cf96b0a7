/**
 * Where the server may send a request a user asked for (run webhooks, A2A push notifications): the
 * `webhooks.url` policy of langgraph.json applied to one URL, and the class of every address a host
 * stands for. Pure: the URL is read with the WHATWG parser, which already turns every IPv4 spelling
 * (`http://2852039166/`, `http://0xa9.0376.43518/`, percent-encoded digits, a trailing dot) into one
 * dotted quad, so the address rules below see a single form. Names that need DNS are judged again
 * on every resolved address when the request is sent (engine `webhooks/guarded-post.ts`).
 */

/**
 * - `public`: a routable internet address.
 * - `loopback`: 127/8, ::1, and the `localhost` names.
 * - `private`: RFC 1918, CGNAT 100.64/10, benchmarking 198.18/15, unique-local fc00::/7, site-local fec0::/10.
 * - `link-local`: 169.254/16, fe80::/10 and the cloud metadata endpoints (fd00:ec2::254,
 *   metadata.google.internal): never a target, whatever the policy says.
 * - `unspecified`: 0/8 and :: (a connection to 0.0.0.0 reaches this host): never a target.
 * - `reserved`: multicast, 240/4 and broadcast, documentation and protocol-assignment ranges, Teredo: never.
 */
export type AddressClass = "public" | "loopback" | "private" | "link-local" | "unspecified" | "reserved";

export interface OutboundUrlPolicy {
  /** Absolute URLs must be https. */
  requireHttps: boolean;
  /** Hostname allowlist (`hooks.example.com`, `*.example.com` for subdomains only); empty: any host. */
  allowedDomains: readonly string[];
  /** Port allowlist (a URL without a port means 443 or 80); empty: any port. */
  allowedPorts: readonly number[];
  maxUrlLength: number;
  /** Paths on this server ("/hooks/done"), delivered in-process. */
  allowRelative: boolean;
  allowLoopback: boolean;
  allowPrivate: boolean;
}

/** The result of `checkOutboundUrl`: a path on this server, an absolute URL to send to, or why not. */
export type OutboundUrlCheck =
  | { ok: true; relative: true; path: string }
  | {
      ok: true;
      relative: false;
      url: URL;
      /** Lower-case, without IPv6 brackets or a trailing dot. */
      host: string;
      port: number;
      /** `host` is an IP address: nothing to resolve, it was judged here. */
      literal: boolean;
    }
  | { ok: false; reason: string };

/** A path on this server ("/hooks/done"), not a URL: "//host" and "/\host" are hosts to the URL parser. */
export function isRelativeWebhook(url: string): boolean {
  return url.startsWith("/") && url[1] !== "/" && url[1] !== "\\";
}

/** Checks `raw` against `policy` without resolving anything (see the module comment). */
export function checkOutboundUrl(raw: string, policy: OutboundUrlPolicy): OutboundUrlCheck {
  if (raw.length > policy.maxUrlLength) return refuse(`the URL is longer than ${policy.maxUrlLength} characters`);
  if (isRelativeWebhook(raw)) {
    return policy.allowRelative ? { ok: true, relative: true, path: raw } : refuse("paths on this server (loopback webhooks) are disabled");
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return refuse("not an absolute http(s) URL");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return refuse("not an absolute http(s) URL");
  if (policy.requireHttps && url.protocol !== "https:") return refuse("the URL must use https");
  const port = url.port ? Number(url.port) : url.protocol === "https:" ? 443 : 80;
  if (policy.allowedPorts.length > 0 && !policy.allowedPorts.includes(port)) return refuse(`port ${port} is not allowed`);
  const host = bareHost(url.hostname);
  if (!host) return refuse("the URL has no host");
  if (policy.allowedDomains.length > 0 && !policy.allowedDomains.some((pattern) => domainMatches(host, pattern))) {
    return refuse(`host ${host} is not in webhooks.url.allowed_domains`);
  }
  const literal = isIpAddress(host);
  const hostClass = literal ? classifyAddress(host) : classifyHostName(host);
  const refusal = hostClass && classRefusal(hostClass, policy);
  if (refusal) return refuse(`host ${host} is ${refusal}`);
  return { ok: true, relative: false, url, host, port, literal };
}

/** Why a resolved address may not be sent to under `policy`, or undefined when it may. */
export function addressRefusal(address: string, policy: OutboundUrlPolicy): string | undefined {
  const refusal = classRefusal(classifyAddress(address), policy);
  return refusal && `${address} is ${refusal}`;
}

/** `*.example.com` matches subdomains of example.com (not example.com itself); anything else is exact. */
export function domainMatches(host: string, pattern: string): boolean {
  const wanted = pattern.trim().toLowerCase();
  const name = host.toLowerCase();
  return wanted.startsWith("*.") ? name.endsWith(wanted.slice(1)) && name.length > wanted.length - 1 : name === wanted;
}

/** The class of an IP address (IPv4 dotted quad or IPv6, an optional `%zone` ignored); unparseable: reserved. */
export function classifyAddress(address: string): AddressClass {
  const v4 = parseIpv4(address);
  if (v4 !== undefined) return classifyIpv4(v4);
  const v6 = parseIpv6(address);
  return v6 === undefined ? "reserved" : classifyIpv6(v6);
}

export function isIpAddress(text: string): boolean {
  return parseIpv4(text) !== undefined || parseIpv6(text) !== undefined;
}

const CLASS_REFUSAL: Record<Exclude<AddressClass, "public">, string> = {
  loopback: "a loopback address",
  private: "a private-network address",
  "link-local": "a link-local or cloud metadata address",
  unspecified: "an unspecified address (0.0.0.0, ::)",
  reserved: "a reserved, multicast or documentation address",
};

function classRefusal(addressClass: AddressClass, policy: OutboundUrlPolicy): string | undefined {
  if (addressClass === "public") return undefined;
  if (addressClass === "loopback" && policy.allowLoopback) return undefined;
  if (addressClass === "private" && policy.allowPrivate) return undefined;
  return CLASS_REFUSAL[addressClass];
}

function refuse(reason: string): OutboundUrlCheck {
  return { ok: false, reason };
}

function bareHost(hostname: string): string {
  const unbracketed = hostname.startsWith("[") && hostname.endsWith("]") ? hostname.slice(1, -1) : hostname;
  return unbracketed.replace(/\.$/, "").toLowerCase();
}

/** Names whose meaning is fixed without DNS; undefined: DNS decides at send time. */
function classifyHostName(host: string): AddressClass | undefined {
  if (host === "localhost" || host.endsWith(".localhost")) return "loopback";
  if (host === "metadata.google.internal") return "link-local";
  return undefined;
}

function inV4(address: number, base: string, bits: number): boolean {
  const mask = bits === 0 ? 0 : (~0 << (32 - bits)) >>> 0;
  return (address & mask) >>> 0 === (parseIpv4(base)! & mask) >>> 0;
}

const V4_RANGES: ReadonlyArray<readonly [string, number, AddressClass]> = [
  ["0.0.0.0", 8, "unspecified"],
  ["127.0.0.0", 8, "loopback"],
  ["169.254.0.0", 16, "link-local"],
  ["10.0.0.0", 8, "private"],
  ["172.16.0.0", 12, "private"],
  ["192.168.0.0", 16, "private"],
  ["100.64.0.0", 10, "private"],
  ["198.18.0.0", 15, "private"],
  ["192.0.0.0", 24, "reserved"],
  ["192.0.2.0", 24, "reserved"],
  ["198.51.100.0", 24, "reserved"],
  ["203.0.113.0", 24, "reserved"],
  ["224.0.0.0", 4, "reserved"],
  ["240.0.0.0", 4, "reserved"],
];

function classifyIpv4(address: number): AddressClass {
  for (const [base, bits, addressClass] of V4_RANGES) if (inV4(address, base, bits)) return addressClass;
  return "public";
}

/** Strict dotted quad (what the URL parser and DNS produce); anything else is not IPv4 here. */
function parseIpv4(text: string): number | undefined {
  const parts = text.split(".");
  if (parts.length !== 4) return undefined;
  let value = 0;
  for (const part of parts) {
    if (!/^\d{1,3}$/.test(part) || Number(part) > 255) return undefined;
    value = value * 256 + Number(part);
  }
  return value;
}

/** Eight 16-bit groups, or undefined; accepts `::`, a dotted IPv4 tail (`::ffff:1.2.3.4`) and a `%zone`. */
function parseIpv6(text: string): number[] | undefined {
  let body = text.split("%")[0];
  if (!body.includes(":")) return undefined;
  const lastColon = body.lastIndexOf(":");
  const last = body.slice(lastColon + 1);
  if (last.includes(".")) {
    const v4 = parseIpv4(last);
    if (v4 === undefined) return undefined;
    body = `${body.slice(0, lastColon + 1)}${(v4 >>> 16).toString(16)}:${(v4 & 0xffff).toString(16)}`;
  }
  const halves = body.split("::");
  if (halves.length > 2) return undefined;
  const groups = (half: string) => (half === "" ? [] : half.split(":"));
  const head = groups(halves[0]);
  const rest = halves.length === 2 ? groups(halves[1]) : [];
  const explicit = head.length + rest.length;
  if (halves.length === 1 ? explicit !== 8 : explicit > 7) return undefined;
  const parse = (group: string) => (/^[0-9a-f]{1,4}$/i.test(group) ? parseInt(group, 16) : NaN);
  const words = [...head.map(parse), ...Array<number>(8 - explicit).fill(0), ...rest.map(parse)];
  return words.some(Number.isNaN) ? undefined : words;
}

function classifyIpv6(words: number[]): AddressClass {
  const embeddedV4 = (high: number, low: number) => classifyIpv4(((high << 16) >>> 0) + low);
  const zeroUpTo = (count: number) => words.slice(0, count).every((word) => word === 0);
  if (zeroUpTo(8)) return "unspecified";
  if (zeroUpTo(7) && words[7] === 1) return "loopback";
  // IPv4-mapped (::ffff:a.b.c.d) and IPv4-compatible (::a.b.c.d) reach the embedded IPv4 address.
  if (zeroUpTo(5) && (words[5] === 0xffff || words[5] === 0)) return embeddedV4(words[6], words[7]);
  // NAT64 (64:ff9b::a.b.c.d) and 6to4 (2002:aabb:ccdd::) are translated to the embedded IPv4 address.
  if (words[0] === 0x64 && words[1] === 0xff9b && words.slice(2, 6).every((word) => word === 0)) return embeddedV4(words[6], words[7]);
  if (words[0] === 0x2002) return embeddedV4(words[1], words[2]);
  if (words[0] === 0x64 && words[1] === 0xff9b && words[2] === 1) return "private";
  // The AWS instance metadata endpoint over IPv6 sits inside unique-local space.
  if (words[0] === 0xfd00 && words[1] === 0x0ec2 && words.slice(2, 7).every((word) => word === 0) && words[7] === 0x254) {
    return "link-local";
  }
  if ((words[0] & 0xffc0) === 0xfe80) return "link-local";
  if ((words[0] & 0xffc0) === 0xfec0) return "private";
  if ((words[0] & 0xfe00) === 0xfc00) return "private";
  if ((words[0] & 0xff00) === 0xff00) return "reserved";
  if (words[0] === 0x2001 && (words[1] === 0x0db8 || words[1] === 0)) return "reserved"; // documentation, Teredo
  if (words[0] === 0x0100 && words.slice(1, 4).every((word) => word === 0)) return "reserved"; // discard-only 100::/64
  return "public";
}
