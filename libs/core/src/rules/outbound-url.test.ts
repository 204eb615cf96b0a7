import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { addressRefusal, checkOutboundUrl, classifyAddress, type OutboundUrlPolicy } from "./outbound-url.js";

/** `serve` without a `webhooks.url` section. */
const SERVE: OutboundUrlPolicy = {
  requireHttps: false,
  allowedDomains: [],
  allowedPorts: [],
  maxUrlLength: 4096,
  allowRelative: true,
  allowLoopback: false,
  allowPrivate: false,
};
/** `dev`: loopback and private networks allowed. */
const DEV: OutboundUrlPolicy = { ...SERVE, allowLoopback: true, allowPrivate: true };

function verdict(url: string, policy: OutboundUrlPolicy): string {
  const check = checkOutboundUrl(url, policy);
  if (!check.ok) return `refused: ${check.reason}`;
  return check.relative ? "relative" : `ok ${check.host}:${check.port}`;
}

describe("checkOutboundUrl", () => {
  it.each([
    // Cloud metadata and link-local, in every spelling: refused even in dev.
    ["http://169.254.169.254/latest/meta-data/", DEV, /link-local/],
    ["http://2852039166/", DEV, /169\.254\.169\.254 is a link-local/],
    ["http://0xa9fea9fe/", DEV, /link-local/],
    ["http://0251.0376.0251.0376/", DEV, /link-local/],
    ["http://0xa9.0xfe.43518/", DEV, /link-local/],
    ["http://%31%36%39.254.169.254/", DEV, /link-local/],
    ["http://169.254.169.254./", DEV, /link-local/],
    ["http://[::ffff:169.254.169.254]/", DEV, /link-local/],
    ["http://[::ffff:a9fe:a9fe]/", DEV, /link-local/],
    ["http://[::169.254.169.254]/", DEV, /link-local/],
    ["http://[64:ff9b::169.254.169.254]/", DEV, /link-local/],
    ["http://[2002:a9fe:a9fe::]/", DEV, /link-local/],
    ["http://[fe80::1]/", DEV, /link-local/],
    ["http://[fd00:ec2::254]/", DEV, /cloud metadata/],
    ["http://metadata.google.internal/computeMetadata/v1/", DEV, /cloud metadata/],
    ["http://0.0.0.0:8080/", DEV, /unspecified/],
    ["http://0/", DEV, /unspecified/],
    ["http://[::]/", DEV, /unspecified/],
    ["http://224.0.0.1/", DEV, /multicast/],
    ["http://255.255.255.255/", DEV, /reserved/],
    ["http://[ff02::1]/", DEV, /multicast/],
    // Loopback and private networks: refused in serve, allowed in dev.
    ["http://127.0.0.1:9000/hook", SERVE, /loopback/],
    ["http://2130706433/", SERVE, /127\.0\.0\.1 is a loopback/],
    ["http://0x7f.1/", SERVE, /loopback/],
    ["http://localhost:3000/", SERVE, /loopback/],
    ["http://LOCALHOST./", SERVE, /loopback/],
    ["http://hooks.localhost/", SERVE, /loopback/],
    ["http://[::1]/", SERVE, /loopback/],
    ["http://[::ffff:127.0.0.1]/", SERVE, /loopback/],
    ["http://10.1.2.3/", SERVE, /private/],
    ["http://172.16.0.1/", SERVE, /private/],
    ["http://172.31.255.255/", SERVE, /private/],
    ["http://192.168.1.1/", SERVE, /private/],
    ["http://100.64.0.1/", SERVE, /private/],
    ["http://[fc00::1]/", SERVE, /private/],
    ["http://[fd12:3456::1]/", SERVE, /private/],
    ["http://[::ffff:10.0.0.1]/", SERVE, /private/],
    // Not http(s), or not a URL.
    ["ftp://example.com/", SERVE, /http\(s\)/],
    ["file:///etc/passwd", SERVE, /http\(s\)/],
    ["//example.com/hook", SERVE, /http\(s\)/],
    ["/\\example.com/hook", SERVE, /http\(s\)/],
    ["hooks.example.com/done", SERVE, /http\(s\)/],
  ])("refuses %s", (url, policy, reason) => {
    expect(verdict(url, policy)).toMatch(/^refused: /);
    expect(verdict(url, policy)).toMatch(reason);
  });

  it.each([
    ["http://127.0.0.1:9000/hook", DEV, "ok 127.0.0.1:9000"],
    ["http://localhost/", DEV, "ok localhost:80"],
    ["http://10.1.2.3/", DEV, "ok 10.1.2.3:80"],
    ["http://[fd12::1]:8443/", DEV, "ok fd12::1:8443"],
    ["http://172.32.0.1/", SERVE, "ok 172.32.0.1:80"],
    ["https://hooks.example.com/done?x=1", SERVE, "ok hooks.example.com:443"],
    ["http://8.8.8.8/", SERVE, "ok 8.8.8.8:80"],
    ["http://[2606:4700::1111]/", SERVE, "ok 2606:4700::1111:80"],
    ["/hooks/done", SERVE, "relative"],
  ])("accepts %s", (url, policy, expected) => {
    expect(verdict(url, policy)).toBe(expected);
  });

  it("applies require_https, allowed_ports, allowed_domains, max_url_length and disable_loopback as the Python server does", () => {
    const strict: OutboundUrlPolicy = {
      ...SERVE,
      requireHttps: true,
      allowedPorts: [443, 8443],
      allowedDomains: ["hooks.example.com", "*.mycorp.com"],
      maxUrlLength: 60,
      allowRelative: false,
    };
    expect(verdict("https://hooks.example.com/x", strict)).toBe("ok hooks.example.com:443");
    expect(verdict("https://HOOKS.example.com:8443/x", strict)).toBe("ok hooks.example.com:8443");
    expect(verdict("https://a.b.mycorp.com/x", strict)).toBe("ok a.b.mycorp.com:443");
    expect(verdict("http://hooks.example.com/x", strict)).toMatch(/must use https/);
    expect(verdict("https://hooks.example.com:444/x", strict)).toMatch(/port 444 is not allowed/);
    expect(verdict("https://mycorp.com/x", strict)).toMatch(/not in webhooks\.url\.allowed_domains/);
    expect(verdict("https://evilmycorp.com/x", strict)).toMatch(/not in webhooks\.url\.allowed_domains/);
    expect(verdict("https://hooks.example.com.evil.io/x", strict)).toMatch(/not in webhooks\.url\.allowed_domains/);
    expect(verdict(`https://hooks.example.com/${"x".repeat(60)}`, strict)).toMatch(/longer than 60/);
    expect(verdict("/hooks/done", strict)).toMatch(/loopback webhooks\) are disabled/);
    // A default port is the scheme's.
    expect(verdict("http://hooks.example.com/", { ...SERVE, allowedPorts: [80] })).toBe("ok hooks.example.com:80");
    // An allowlisted name is still judged by its address.
    expect(verdict("http://127.0.0.1/", { ...SERVE, allowedDomains: ["127.0.0.1"] })).toMatch(/loopback/);
  });
});

describe("classifyAddress (resolved addresses, as DNS returns them)", () => {
  it.each([
    ["169.254.169.254", "link-local"],
    ["::ffff:169.254.169.254", "link-local"],
    ["fe80::1%eth0", "link-local"],
    ["127.0.0.53", "loopback"],
    ["::1", "loopback"],
    ["10.0.0.1", "private"],
    ["fc00::1", "private"],
    ["0.0.0.0", "unspecified"],
    ["93.184.215.14", "public"],
    ["2a00:1450:4001:80b::200e", "public"],
    ["not-an-address", "reserved"],
  ])("%s is %s", (address, expected) => {
    expect(classifyAddress(address)).toBe(expected);
  });

  it("refuses loopback addresses unless allowed", () => {
    expect(addressRefusal("127.0.0.1", SERVE)).toBe("127.0.0.1 is a loopback address");
    expect(addressRefusal("127.0.0.1", DEV)).toBeUndefined();
    expect(addressRefusal("169.254.0.1", DEV)).toMatch(/link-local/);
  });
});

// An oracle independent of the rule: the ranges as integer intervals.
const range = (a: number, b: number, c: number, d: number, bits: number) => {
  const start = ((a << 24) | (b << 16) | (c << 8) | d) >>> 0;
  return [start, start + 2 ** (32 - bits) - 1] as const;
};
const ALWAYS_REFUSED = [
  range(0, 0, 0, 0, 8),
  range(169, 254, 0, 0, 16),
  range(192, 0, 0, 0, 24),
  range(192, 0, 2, 0, 24),
  range(198, 51, 100, 0, 24),
  range(203, 0, 113, 0, 24),
  range(224, 0, 0, 0, 3), // multicast 224/4 and 240/4 together
];
const LOCAL = [
  range(127, 0, 0, 0, 8),
  range(10, 0, 0, 0, 8),
  range(172, 16, 0, 0, 12),
  range(192, 168, 0, 0, 16),
  range(100, 64, 0, 0, 10),
  range(198, 18, 0, 0, 15),
];
const within = (ranges: ReadonlyArray<readonly [number, number]>, n: number) => ranges.some(([lo, hi]) => n >= lo && n <= hi);

/** The ways one IPv4 address can be written as a URL host (a property test once met ::0.0.0.1 = ::1). */
function spellings(n: number): string[] {
  const octets = [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255];
  const hex = (value: number) => value.toString(16);
  const mapped = `${hex(n >>> 16)}:${hex(n & 0xffff)}`;
  return [
    octets.join("."),
    `${octets.join(".")}.`,
    String(n),
    `0x${hex(n)}`,
    octets.map((o) => `0${o.toString(8)}`).join("."),
    octets.map((o) => `0x${hex(o)}`).join("."),
    `${octets[0]}.${(n & 0xffffff) >>> 0}`,
    `${octets[0]}.${octets[1]}.${n & 0xffff}`,
    octets.join(".").replace(/\d/, (digit) => `%3${digit}`),
    `[::ffff:${octets.join(".")}]`,
    `[::ffff:${mapped}]`,
    `[0:0:0:0:0:ffff:${mapped}]`,
    // IPv4-compatible form, except where it is an IPv6 address of its own: ::0.0.0.0 is ::, ::0.0.0.1 is ::1.
    ...(n > 1 ? [`[::${octets.join(".")}]`] : []),
    `[64:ff9b::${mapped}]`,
    `[2002:${mapped}::1]`,
  ];
}

const ipv4 = fc.oneof(fc.nat({ max: 0xffffffff }), ...[...ALWAYS_REFUSED, ...LOCAL].map(([lo, hi]) => fc.integer({ min: lo, max: hi })));

describe("no refused range is ever accepted, however the address is written", () => {
  it("serve: accepted exactly when the address is outside every refused range", () => {
    fc.assert(
      fc.property(ipv4, fc.nat(), fc.constantFrom("http", "https"), (n, pick, scheme) => {
        const all = spellings(n);
        const host = all[pick % all.length];
        const check = checkOutboundUrl(`${scheme}://${host}/hook`, SERVE);
        expect(check.ok).toBe(!within(ALWAYS_REFUSED, n) && !within(LOCAL, n));
      }),
      { numRuns: 2000 },
    );
  });

  it("dev: link-local, unspecified and reserved stay refused; loopback and private are allowed", () => {
    fc.assert(
      fc.property(ipv4, fc.nat(), (n, pick) => {
        const all = spellings(n);
        const check = checkOutboundUrl(`http://${all[pick % all.length]}:8080/`, DEV);
        expect(check.ok).toBe(!within(ALWAYS_REFUSED, n));
      }),
      { numRuns: 2000 },
    );
  });

  it("resolved IPv4 and IPv4-mapped IPv6 addresses are judged alike", () => {
    fc.assert(
      fc.property(ipv4, (n) => {
        const dotted = [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join(".");
        expect(addressRefusal(`::ffff:${dotted}`, SERVE) === undefined).toBe(addressRefusal(dotted, SERVE) === undefined);
        expect(addressRefusal(dotted, SERVE) === undefined).toBe(!within(ALWAYS_REFUSED, n) && !within(LOCAL, n));
      }),
    );
  });

  it("link-local IPv6 (fe80::/10) is refused under any policy", () => {
    const permissive: OutboundUrlPolicy = { ...DEV, allowedDomains: [] };
    fc.assert(
      fc.property(
        fc.integer({ min: 0xfe80, max: 0xfebf }),
        fc.array(fc.nat({ max: 0xffff }), { minLength: 7, maxLength: 7 }),
        (first, rest) => {
          const address = [first, ...rest].map((word) => word.toString(16)).join(":");
          expect(checkOutboundUrl(`http://[${address}]/`, permissive).ok).toBe(false);
          expect(addressRefusal(address, permissive)).toMatch(/link-local/);
        },
      ),
    );
  });

  it("never throws, whatever the input", () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.webUrl({ withQueryParameters: true })), (raw) => {
        const check = checkOutboundUrl(raw, SERVE);
        if (check.ok && !check.relative && check.literal) expect(classifyAddress(check.host)).toBe("public");
      }),
    );
  });
});
