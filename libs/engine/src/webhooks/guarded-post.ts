import type { LookupAddress } from "node:dns";
import { lookup as dnsLookup } from "node:dns/promises";
import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import type { LookupFunction } from "node:net";
import { addressRefusal, type OutboundUrlPolicy } from "@agent-server/core";

/** The policy refused where a delivery would go: it is not sent, now or later. */
export class OutboundUrlRefusedError extends Error {
  override readonly name = "OutboundUrlRefusedError";
}

export interface GuardedPostInit {
  headers: Headers;
  body: string;
  signal: AbortSignal;
}

/** Every address a host name stands for (the system resolver by default; tests give a fixed answer). */
export type ResolveHost = (hostname: string, family: number) => Promise<LookupAddress[]>;

export const systemResolveHost: ResolveHost = (hostname, family) =>
  dnsLookup(hostname, { all: true, family: family === 4 || family === 6 ? family : 0 });

/**
 * POSTs to an absolute URL that `checkOutboundUrl` accepted, and answers the status code.
 *
 * The host name is resolved once, inside the connection's own lookup: every address DNS returns is
 * checked against `policy` (one refused address refuses the delivery: a resolver may hand out either),
 * and the socket connects only to those checked addresses. There is no second resolution between the
 * check and the connect, so a name that rebinds to 169.254.169.254 after an earlier answer cannot slip
 * in. An IP literal is not resolved at all (the URL check judged it). Redirects are not followed (node
 * http never does): a 3xx is a failed delivery, so a receiver cannot bounce the POST to a refused
 * target. A fresh connection per delivery (no keep-alive pool), so no socket outlives its check.
 */
export function guardedPost(
  url: URL,
  policy: OutboundUrlPolicy,
  init: GuardedPostInit,
  resolveHost: ResolveHost = systemResolveHost,
): Promise<number> {
  const send = url.protocol === "https:" ? httpsRequest : httpRequest;
  const headers: Record<string, string> = {};
  init.headers.forEach((value, name) => (headers[name] = value));
  headers["content-length"] = String(Buffer.byteLength(init.body));
  return new Promise<number>((resolve, reject) => {
    const request = send(
      {
        protocol: url.protocol,
        hostname: url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname,
        port: url.port || undefined,
        path: `${url.pathname}${url.search}`,
        method: "POST",
        headers,
        agent: false,
        signal: init.signal,
        lookup: checkedLookup(policy, resolveHost),
      },
      (response: IncomingMessage) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      },
    );
    request.on("error", reject);
    request.end(init.body);
  });
}

/** A `lookup` for net.connect that refuses the whole answer when any address is refused. */
function checkedLookup(policy: OutboundUrlPolicy, resolveHost: ResolveHost): LookupFunction {
  return (hostname, options, callback) => {
    const answer = callback as unknown as (error: Error | null, addresses: LookupAddress[] | string, family?: number) => void;
    const family = options.family === "IPv4" ? 4 : options.family === "IPv6" ? 6 : (options.family ?? 0);
    resolveHost(hostname, family).then(
      (addresses) => {
        const refusal = addresses.map(({ address }) => addressRefusal(address, policy)).find((reason) => reason !== undefined);
        if (refusal !== undefined || addresses.length === 0) {
          return answer(new OutboundUrlRefusedError(`host ${hostname} resolves to ${refusal ?? "no address"}`), "", 0);
        }
        if (options.all) return answer(null, addresses);
        answer(null, addresses[0].address, addresses[0].family);
      },
      (error: Error) => answer(error, "", 0),
    );
  };
}
