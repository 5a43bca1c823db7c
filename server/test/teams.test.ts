import type { FastifyInstance } from 'fastify'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { bootstrap } from '../src/bootstrap.ts'
import { testConfig } from '../src/config.ts'
import { DEFAULT_TEAM_ID } from '../src/store/team-types.ts'
import { makeToken, makeUser } from './access/world.ts'
import { ADMIN, eid, issuesOf, sendItems, testApp } from './helpers.ts'
import { signIn } from './ui-helpers.ts'

let app: FastifyInstance

beforeEach(async () => {
  app = await testApp()
})
afterEach(async () => {
  await app.close()
})

const as = (headers: Record<string, string>) => ({
  get: (url: string) => app.inject({ url, headers }),
  put: (url: string, payload: object) => app.inject({ method: 'PUT', url, headers, payload }),
  post: (url: string, payload: object) => app.inject({ method: 'POST', url, headers, payload }),
  del: (url: string) => app.inject({ method: 'DELETE', url, headers }),
})

async function newTeam(name: string): Promise<number> {
  const res = await as(ADMIN).post('/api/0/teams/', { name })
  expect(res.statusCode, res.body).toBe(201)
  return res.json<{ id: number }>().id
}

async function bearerOf(
  email: string,
  scopes: ('read' | 'write' | 'admin')[] = ['read', 'write', 'admin'],
) {
  const id = await makeUser(app, email)
  const { secret } = await makeToken(app, id, scopes)
  return { id, headers: { authorization: `Bearer ${secret}` } }
}

describe('teams and members', () => {
  it('the instance admin creates teams and moves projects; lists follow the move', async () => {
    const team = await newTeam('Payments')
    const project = (await as(ADMIN).post('/api/0/projects/', { name: 'checkout' })).json<{
      id: number
      team_id: number
    }>()
    expect(project.team_id).toBe(DEFAULT_TEAM_ID)
    const dev = await bearerOf('dev@example.com')
    await as(ADMIN).put(`/api/0/teams/${team}/members/`, {
      email: 'dev@example.com',
      role: 'member',
    })
    expect((await as(dev.headers).get('/api/0/projects/')).json()).toEqual([])
    expect((await as(dev.headers).get(`/api/0/projects/${project.id}/`)).statusCode).toBe(404)

    const moved = await as(ADMIN).put(`/api/0/projects/${project.id}/team/`, { team_id: team })
    expect(moved.statusCode, moved.body).toBe(200)
    expect(moved.json<{ team_id: number }>().team_id).toBe(team)
    expect(
      (await as(dev.headers).get('/api/0/projects/')).json<{ id: number }[]>().map((p) => p.id),
    ).toEqual([project.id])
    expect((await as(dev.headers).get(`/api/0/projects/${project.id}/`)).statusCode).toBe(200)
    expect(
      (await as(ADMIN).put(`/api/0/projects/${project.id}/team/`, { team_id: 999 })).statusCode,
    ).toBe(400)
  })

  it('team admins add existing users, change roles and remove them; a team keeps one admin', async () => {
    const team = await newTeam('Platform')
    const lead = await bearerOf('lead@example.com')
    await makeUser(app, 'new@example.com')
    expect(
      (
        await as(ADMIN).put(`/api/0/teams/${team}/members/`, {
          email: 'lead@example.com',
          role: 'admin',
        })
      ).statusCode,
    ).toBe(200)
    const lead_ = as(lead.headers)
    const added = await lead_.put(`/api/0/teams/${team}/members/`, {
      email: 'new@example.com',
      role: 'viewer',
    })
    expect(added.statusCode, added.body).toBe(200)
    expect(added.json()).toMatchObject({ email: 'new@example.com', role: 'viewer' })
    const promoted = await lead_.put(`/api/0/teams/${team}/members/`, {
      email: 'new@example.com',
      role: 'member',
    })
    expect(promoted.json()).toMatchObject({ role: 'member' })
    const members = (await lead_.get(`/api/0/teams/${team}/members/`)).json<
      { email: string; role: string }[]
    >()
    expect(members.map((m) => [m.email, m.role])).toEqual([
      ['lead@example.com', 'admin'],
      ['new@example.com', 'member'],
    ])

    const unknown = await lead_.put(`/api/0/teams/${team}/members/`, {
      email: 'ghost@example.com',
      role: 'viewer',
    })
    expect(unknown.statusCode).toBe(404)
    expect(unknown.json<{ detail: string }>().detail).toMatch(/no user with the e-mail/)

    const demoteSelf = await lead_.put(`/api/0/teams/${team}/members/`, {
      email: 'lead@example.com',
      role: 'member',
    })
    expect(demoteSelf.statusCode).toBe(409)
    expect((await lead_.del(`/api/0/teams/${team}/members/${lead.id}/`)).statusCode).toBe(409)

    const newId = (await app.services.store.findUserByEmail('new@example.com'))?.id
    expect((await lead_.del(`/api/0/teams/${team}/members/${newId}/`)).statusCode).toBe(204)
    expect((await lead_.del(`/api/0/teams/${team}/members/${newId}/`)).statusCode).toBe(404)
    expect((await lead_.get(`/api/0/teams/${team}/members/`)).json()).toHaveLength(1)

    // Every membership change left one audit row naming who did it.
    const audit = (await as(ADMIN).get('/api/0/audit-log/?limit=100')).json<
      { action: string; actor: { user_id: number | null }; target: string; details: object }[]
    >()
    const ofTeam = audit.filter((e) => e.target === `team:${team}`).reverse()
    expect(ofTeam.map((e) => [e.action, e.actor.user_id, e.details])).toEqual([
      ['team.create', null, { name: 'Platform' }],
      ['member.add', null, { user: lead.id, role: 'admin' }],
      ['member.add', lead.id, { user: newId, role: 'viewer' }],
      ['member.role', lead.id, { user: newId, role: 'member' }],
      ['member.remove', lead.id, { user: newId }],
    ])
  })

  it('a team admin token of scope write cannot manage members; a project is created in the team', async () => {
    const team = await newTeam('Mobile')
    const lead = await bearerOf('m-lead@example.com', ['read', 'write'])
    await as(ADMIN).put(`/api/0/teams/${team}/members/`, {
      email: 'm-lead@example.com',
      role: 'admin',
    })
    await makeUser(app, 'x@example.com')
    const res = await as(lead.headers).put(`/api/0/teams/${team}/members/`, {
      email: 'x@example.com',
      role: 'viewer',
    })
    expect(res.statusCode).toBe(403)
    expect(res.json<{ detail: string }>().detail).toMatch(/team:admin/)

    const full = await makeToken(app, lead.id, ['read', 'write', 'admin'])
    const created = await as({ authorization: `Bearer ${full.secret}` }).post('/api/0/projects/', {
      name: 'ios',
    })
    expect(created.statusCode, created.body).toBe(201)
    expect(created.json<{ team_id: number }>().team_id).toBe(team)
  })

  it('a user in no team sees no project and cannot create one', async () => {
    const loner = await bearerOf('loner@example.com')
    expect((await as(loner.headers).get('/api/0/projects/')).json()).toEqual([])
    expect((await as(loner.headers).get('/api/0/teams/')).json()).toEqual([])
    const res = await as(loner.headers).post('/api/0/projects/', { name: 'mine' })
    expect(res.statusCode).toBe(403)
    // Access is decided before the body is validated: an invalid body tells them nothing more.
    const other = (await as(ADMIN).post('/api/0/projects/', { name: 'not theirs' })).json<{
      id: number
    }>().id
    const invalid: [string, object][] = [
      ['/api/0/teams/', {}],
      ['/api/0/invitations/', { email: 'not an address' }],
      [`/api/0/projects/${other}/alert-rules/`, { name: 1 }],
    ]
    for (const [url, body] of invalid) {
      const bad = await as(loner.headers).post(url, body)
      expect([bad.statusCode, url]).toEqual([url.includes('/projects/') ? 404 : 403, url])
    }
  })
})

describe('team pages', () => {
  it('a team admin adds a member through the form; a viewer sees the team without the forms', async () => {
    const team = await newTeam('Web')
    await makeUser(app, 'web-lead@example.com')
    await makeUser(app, 'web-viewer@example.com')
    await as(ADMIN).put(`/api/0/teams/${team}/members/`, {
      email: 'web-lead@example.com',
      role: 'admin',
    })
    const lead = await signIn(app, 'web-lead@example.com')
    const page = await lead.get(`/settings/teams/${team}`)
    expect(page.statusCode).toBe(200)
    expect(page.body).toContain('Add a member')
    const add = await lead.post(`/settings/teams/${team}/members`, {
      email: 'web-viewer@example.com',
      role: 'viewer',
    })
    expect(add.statusCode, add.body.slice(0, 300)).toBe(303)

    const viewer = await signIn(app, 'web-viewer@example.com')
    const seen = await viewer.get(`/settings/teams/${team}`)
    expect(seen.statusCode).toBe(200)
    expect(seen.body).toContain('web-lead@example.com')
    expect(seen.body).not.toContain('Add a member')
    expect((await viewer.get('/settings/teams')).body).toContain('Web')
    const denied = await viewer.post(`/settings/teams/${team}/members`, {
      email: 'x@example.com',
      role: 'admin',
    })
    expect(denied.statusCode).toBe(403)
    expect(denied.body).toContain('Error 403')
  })
})

it('pages show a viewer no triage buttons and no Settings; a member the buttons; an admin Settings', async () => {
  const team = await newTeam('Shop')
  const project = (await as(ADMIN).post('/api/0/projects/', { name: 'shop', team_id: team })).json<{
    id: number
    dsn: string
  }>()
  const res = await sendItems(app, { id: project.id, key: new URL(project.dsn).username }, [
    ['event', { event_id: eid(7), message: 'boom' }],
  ])
  expect(res.statusCode).toBe(200)
  const issueId = (await issuesOf(app, project.id))[0]?.id
  const pages = async (role: 'viewer' | 'member' | 'admin') => {
    const email = `shop-${role}@example.com`
    await makeUser(app, email)
    await as(ADMIN).put(`/api/0/teams/${team}/members/`, { email, role })
    const ui = await signIn(app, email)
    const list = await ui.get(`/projects/${project.id}/issues`)
    const detail = await ui.get(`/issues/${issueId}`)
    expect([list.statusCode, detail.statusCode]).toEqual([200, 200])
    return {
      triage: list.body.includes('value="resolve"') && detail.body.includes('value="resolve"'),
      settings: list.body.includes(`/projects/${project.id}/settings`),
    }
  }
  expect(await pages('viewer')).toEqual({ triage: false, settings: false })
  expect(await pages('member')).toEqual({ triage: true, settings: false })
  expect(await pages('admin')).toEqual({ triage: true, settings: true })
})

describe('bootstrap', () => {
  it('makes the first admin the admin of the default team', async () => {
    await bootstrap(app.services.store, testConfig({ adminEmail: 'first@example.com' }))
    const admin = await app.services.store.findUserByEmail('first@example.com')
    expect(admin?.isAdmin).toBe(true)
    const members = await app.services.store.listMembers(DEFAULT_TEAM_ID)
    expect(members.map((m) => [m.email, m.role])).toEqual([['first@example.com', 'admin']])
  })
})
