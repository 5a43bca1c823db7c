import { lookup } from 'node:dns/promises'
import { BlockList, isIP } from 'node:net'

/**
 * Ranges an alert webhook may not reach unless the operator allows it: loopback, private
 * (RFC 1918, RFC 4193), link-local (cloud metadata at 169.254.169.254), carrier-grade NAT,
 * "this network", multicast and broadcast. Otherwise anyone allowed to create a rule could make
 * the server probe and POST to internal services (SSRF).
 */
const PRIVATE = new BlockList()
for (const [net, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  PRIVATE.addSubnet(net, bits, 'ipv4')
}
for (const [net, bits] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  PRIVATE.addSubnet(net, bits, 'ipv6')
}

/** Whether an IP address (v4, v6 or v4-mapped v6) is in a refused range. */
export function isPrivateAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1]
  if (mapped !== undefined) return PRIVATE.check(mapped, 'ipv4')
  const family = isIP(address)
  if (family === 0) return true
  return PRIVATE.check(address, family === 4 ? 'ipv4' : 'ipv6')
}

/**
 * Refuses a webhook URL whose host is, or resolves to, a refused address; returns the reason,
 * or undefined when the target is allowed. Checked when a rule is created and again before
 * each send (DNS may change in between).
 */
export async function webhookTargetProblem(
  url: string,
  allowPrivate: boolean,
): Promise<string | undefined> {
  if (allowPrivate) return undefined
  let host: string
  try {
    host = new URL(url).hostname.replace(/^\[|\]$/g, '')
  } catch {
    return 'not a URL'
  }
  let addresses: string[]
  if (isIP(host) !== 0) addresses = [host]
  else {
    try {
      addresses = (await lookup(host, { all: true, verbatim: true })).map((a) => a.address)
    } catch {
      // Unresolvable now: the send itself fails (and is retried) like any unreachable host.
      return undefined
    }
  }
  const bad = addresses.find(isPrivateAddress)
  return bad === undefined
    ? undefined
    : `webhook target ${host} is a private, loopback or link-local address (${bad}); set ALERT_ALLOW_PRIVATE_TARGETS=1 to allow it`
}
