import { describe, expect, it } from 'vitest'
import { isPrivateAddress, webhookTargetProblem } from './webhook-target.ts'

describe('webhook targets', () => {
  it('knows the private, loopback and link-local ranges, v4, v6 and v4-mapped', () => {
    for (const a of [
      '127.0.0.1',
      '10.1.2.3',
      '172.16.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '::1',
      'fd00::1',
      'fe80::1',
      '::ffff:127.0.0.1',
    ]) {
      expect(isPrivateAddress(a), a).toBe(true)
    }
    for (const a of ['93.184.216.34', '8.8.8.8', '2606:4700::1111', '172.32.0.1']) {
      expect(isPrivateAddress(a), a).toBe(false)
    }
  })

  it('refuses literal and resolved private hosts unless allowed', async () => {
    expect(await webhookTargetProblem('http://127.0.0.1:9/hook', false)).toMatch(/loopback/)
    expect(await webhookTargetProblem('http://[::1]/hook', false)).toMatch(/private/)
    expect(await webhookTargetProblem('http://localhost/hook', false)).toMatch(/private/)
    expect(await webhookTargetProblem('http://127.0.0.1:9/hook', true)).toBeUndefined()
    expect(await webhookTargetProblem('https://93.184.216.34/hook', false)).toBeUndefined()
  })
})
