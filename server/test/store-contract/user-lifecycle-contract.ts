import { describe, expect, it } from 'vitest'
import type { Store } from '../../src/store/types.ts'
import type { NewAccountLink } from '../../src/store/user-lifecycle-types.ts'

const link = (over: Partial<NewAccountLink> = {}): NewAccountLink => ({
  kind: 'invite',
  tokenHash: Math.random().toString(16).slice(2),
  email: 'x@example.com',
  userId: null,
  isAdmin: false,
  createdBy: null,
  createdAt: 1000,
  expiresAt: 2000,
  ...over,
})

/** User lifecycle and audit log storage rules every backend must keep. */
export function userLifecycleContract(name: string, open: () => Promise<Store>): void {
  describe(`user lifecycle store contract: ${name}`, () => {
    it('never deactivates the last active admin; reactivation clears the mark', async () => {
      const store = await open()
      const a = await store.createUser('a@example.com', 'h', true)
      const b = await store.createUser('b@example.com', 'h', true)
      const u = await store.createUser('u@example.com', 'h', false)
      expect(await store.setUserDeactivated(a.id, 10)).toBe(true)
      expect(await store.setUserDeactivated(a.id, 11)).toBe(false)
      expect(await store.setUserDeactivated(b.id, 12)).toBe(false)
      expect(await store.setUserDeactivated(u.id, 13)).toBe(true)
      expect((await store.getUser(a.id))?.deactivatedAt).toBe(10)
      expect(await store.setUserDeactivated(a.id, null)).toBe(true)
      expect(await store.setUserDeactivated(a.id, null)).toBe(false)
      expect(await store.setUserDeactivated(b.id, 14)).toBe(true)
      expect((await store.listUsers()).map((x) => [x.email, x.deactivatedAt])).toEqual([
        ['a@example.com', null],
        ['b@example.com', 14],
        ['u@example.com', 13],
      ])
      await store.close()
    })

    it('uses a link once, never after expiry or revocation; lists pending invitations', async () => {
      const store = await open()
      const l1 = await store.createAccountLink(link({ tokenHash: 'h1' }))
      const l2 = await store.createAccountLink(link({ tokenHash: 'h2', email: 'y@example.com' }))
      const reset = await store.createAccountLink(link({ tokenHash: 'h3', kind: 'reset' }))
      expect(await store.findAccountLink('h1')).toMatchObject({ id: l1.id, kind: 'invite' })
      expect((await store.listPendingInvites(1500)).map((l) => l.id)).toEqual([l2.id, l1.id])
      expect(await store.useAccountLink(l1.id, 1500)).toBe(true)
      expect(await store.useAccountLink(l1.id, 1500)).toBe(false)
      expect(await store.useAccountLink(l2.id, 2000)).toBe(false)
      expect(await store.revokeAccountLink('reset', l2.id, 1600)).toBe(false)
      expect(await store.revokeAccountLink('invite', l2.id, 1600)).toBe(true)
      expect(await store.useAccountLink(l2.id, 1700)).toBe(false)
      expect(await store.listPendingInvites(1500)).toEqual([])
      expect(await store.useAccountLink(reset.id, 1999)).toBe(true)
      expect((await store.findAccountLink('h3'))?.usedAt).toBe(1999)
      await store.close()
    })

    it('ends all sessions of a user but the one kept; sets the password hash', async () => {
      const store = await open()
      const u = await store.createUser('s@example.com', 'old', false)
      const other = await store.createUser('o@example.com', 'old', false)
      const keep = await store.createSession(u.id, 'k1', 'c', 1, 10 ** 13)
      await store.createSession(u.id, 'k2', 'c', 1, 10 ** 13)
      await store.createSession(other.id, 'k3', 'c', 1, 10 ** 13)
      expect(await store.deleteUserSessions(u.id, keep.id)).toBe(1)
      expect(await store.findSession('k1', 2)).toBeDefined()
      expect(await store.findSession('k3', 2)).toBeDefined()
      expect(await store.deleteUserSessions(u.id)).toBe(1)
      expect(await store.findSession('k1', 2)).toBeUndefined()
      await store.setPasswordHash(u.id, 'new')
      expect((await store.getUser(u.id))?.passwordHash).toBe('new')
      await store.close()
    })

    it('reads the audit log newest first, by action, in keyset pages', async () => {
      const store = await open()
      for (let i = 0; i < 5; i++)
        await store.insertAudit({
          at: i,
          actorUserId: i % 2 === 0 ? null : 7,
          actorKind: i % 2 === 0 ? 'system' : 'user',
          action: i < 3 ? 'a.one' : 'a.two',
          projectId: null,
          target: `t:${i}`,
          details: JSON.stringify({ i }),
        })
      const first = await store.listAudit({}, { limit: 2 })
      expect(first.entries.map((e) => e.target)).toEqual(['t:4', 't:3'])
      const second = await store.listAudit({}, { limit: 2, cursor: first.next })
      expect(second.entries.map((e) => e.target)).toEqual(['t:2', 't:1'])
      const last = await store.listAudit({}, { limit: 2, cursor: second.next })
      expect(last.entries.map((e) => e.target)).toEqual(['t:0'])
      expect(last.next).toBeUndefined()
      const ones = await store.listAudit({ action: 'a.one' }, { limit: 10 })
      expect(ones.entries.map((e) => [e.target, e.actorKind, e.actorUserId])).toEqual([
        ['t:2', 'system', null],
        ['t:1', 'user', 7],
        ['t:0', 'system', null],
      ])
      await store.close()
    })
  })
}
