/**
 * Probing what the target offers beyond the protocol: scenarios that need a capability the
 * target lacks are reported "not run" with the reason, instead of failing for a setting.
 */
import type { Capability } from './matrix.ts'

/** Whether each capability is available, and why (not). */
export type Capabilities = Record<Capability, { available: boolean; reason: string }>

/**
 * The test clock: `POST /api/0/internal/clock/tick/?now=<now>` (admin, only with
 * `INGEST_TEST_CLOCK=1`). Ticking at the current time does what the server's own cron clock
 * does every few seconds anyway, so the probe changes nothing.
 */
async function probeTestClock(url: string, token: string) {
  const now = new Date().toISOString()
  const response = await fetch(`${url}/api/0/internal/clock/tick/?now=${encodeURIComponent(now)}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
  }).catch((error: unknown) => error as Error)
  if (response instanceof Error) {
    return { available: false, reason: `test clock probe failed: ${response.message}` }
  }
  await response.arrayBuffer()
  if (response.ok) return { available: true, reason: 'INGEST_TEST_CLOCK=1 on the target' }
  return {
    available: false,
    reason: `the target has no test clock (POST /api/0/internal/clock/tick/ answered ${response.status}; start it with INGEST_TEST_CLOCK=1)`,
  }
}

/** Probes every capability of the target. */
export async function probeCapabilities(url: string, token: string): Promise<Capabilities> {
  return { 'test-clock': await probeTestClock(url, token) }
}
