/**
 * Whether a host (a name, an address, or an IPv6 address in brackets) is this machine's loopback: `localhost`,
 * 127.0.0.0/8 or ::1. One rule for every place that lets loopback through where anything else needs more (the
 * listening address, the Host names clients use, a key set fetched over plain http), on Node and fetch platforms.
 */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, "").toLowerCase();
  return h === "localhost" || h === "::1" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}
