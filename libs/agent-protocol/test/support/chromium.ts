import { chromium, type Browser } from "playwright-core";

/** Debian's chromium (`apt-get install chromium`; .ci/run installs it). */
export const CHROMIUM = "/usr/bin/chromium";

/**
 * Headless Chromium as browser tests run it on these machines: no sandbox (tests run as root), no GPU,
 * and no background traffic to other hosts (the closed network refuses it, many connections at a time).
 */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}
