import { type LookupAddress, lookup as lookupCallback } from 'node:dns'
import { lookup } from 'node:dns/promises'
import { BlockList, isIP, type LookupFunction } from 'node:net'
import { Agent } from 'undici'

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

/** The error a guarded lookup fails a connection with (shown in the delivery log). */
export class PrivateTargetError extends Error {
  readonly code = 'EPRIVATETARGET'
}

/**
 * A `lookup` for sockets that refuses private, loopback and link-local answers (unless the
 * operator allows them): the socket connects to the address checked here, so a name whose DNS
 * answer changes between the check before a send and the connection (DNS rebinding) cannot
 * reach the inside.
 */
export function guardedLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    lookupCallback(hostname, { ...options, all: true }, (err, found) => {
      if (err !== null) return callback(err, '', 0)
      const list = found as LookupAddress[]
      const bad = allowPrivate ? undefined : list.find((a) => isPrivateAddress(a.address))
      if (bad !== undefined)
        return callback(
          new PrivateTargetError(
            `webhook target ${hostname} resolves to a private, loopback or link-local address (${bad.address})`,
          ),
          '',
          0,
        )
      const first = list[0]
      if (first === undefined) return callback(new Error(`no address for ${hostname}`), '', 0)
      if (options.all === true) callback(null, list)
      else callback(null, first.address, first.family)
    })
  }
}

const agents = new Map<boolean, Agent>()

/**
 * The dispatcher webhook requests go through: every connection resolves its host with
 * {@link guardedLookup}. One per setting, kept for the process (it pools connections).
 */
export function webhookDispatcher(allowPrivate: boolean): Agent {
  let a = agents.get(allowPrivate)
  if (a === undefined) {
    a = new Agent({ connect: { lookup: guardedLookup(allowPrivate) } })
    agents.set(allowPrivate, a)
  }
  return a
}
