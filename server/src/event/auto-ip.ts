import { isIP } from 'node:net'
import { isObj } from './json.ts'
import type { NormalizedEvent } from './types.ts'

/** The placeholder SDKs send for "the address this event came from". */
const AUTO = '{{auto}}'

/**
 * Replaces the `{{auto}}` placeholder in `user.ip_address` and `request.env.REMOTE_ADDR` with
 * the sender's address, as Relay does (relay-event-normalization `normalize_ip_addresses`):
 * browser SDKs send it with `sendDefaultPii`, and without this the UI showed the placeholder as
 * the user's address. With no address (an event made by the server itself) the placeholder is
 * removed. The JS SDKs' `sdk.settings.infer_ip` is honoured as Relay does: `auto` fills an absent
 * `user.ip_address` too, `never` fills nothing (a placeholder is removed). Then, as Relay does,
 * a request's `env.REMOTE_ADDR` that is an IP address fills an absent `user.ip_address`: what
 * Python's web integrations send (Tornado even without `send_default_pii`), so the issue counts
 * its user and `user.ip:` finds it. The bags may be shared with the raw payload, so they are
 * copied, never mutated.
 */
export function resolveAutoIp(
  event: NormalizedEvent,
  given: string | undefined,
  inferIp?: string,
): void {
  const clientIp = inferIp === 'never' ? undefined : given
  const user = event.user
  if (inferIp === 'auto' && clientIp !== undefined && user?.['ip_address'] === undefined) {
    event.user = { ...(user ?? {}), ip_address: clientIp }
  } else if (user !== undefined && user['ip_address'] === AUTO) {
    const { ip_address: _auto, ...rest } = user
    event.user = clientIp === undefined ? rest : { ...rest, ip_address: clientIp }
  }
  const request = event.request
  const env = request?.['env']
  if (request !== undefined && isObj(env) && env['REMOTE_ADDR'] === AUTO) {
    const { REMOTE_ADDR: _auto, ...rest } = env
    const resolved = clientIp === undefined ? rest : { ...rest, REMOTE_ADDR: clientIp }
    event.request = { ...request, env: resolved }
  }
  const envNow = event.request?.['env']
  const remote = isObj(envNow) ? envNow['REMOTE_ADDR'] : undefined
  if (typeof remote === 'string' && isIP(remote) !== 0 && event.user?.['ip_address'] === undefined)
    event.user = { ...(event.user ?? {}), ip_address: remote }
}
