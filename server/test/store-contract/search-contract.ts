import Fastify from 'fastify'
import { describe, expect, it } from 'vitest'
import { parseQuery } from '../../src/search/query.ts'
import { TAG_DISTRIBUTION_KEYS } from '../../src/store/queries/issue-search.ts'
import { installSearchBackfill, runSearchBackfill } from '../../src/store/search-backfill-job.ts'
import type { IssueSort } from '../../src/store/search-types.ts'
import type { EventToWrite, Store } from '../../src/store/types.ts'
import { row } from './contract.ts'
import { openWithProject } from './contract-setup.ts'

const T0 = Date.UTC(2026, 2, 1, 12, 0, 0)
const HOUR = 3_600_000
/** "Now" for relative times: five hours after the first event. */
const NOW = T0 + 5 * HOUR

const A = 'TypeError: x is undefined'
const B = 'ValueError: bad amount'
const C = 'Timeout'

type Tags = [string, string][]
const ev = (
  p: number,
  k: number,
  hash: string,
  title: string,
  culprit: string,
  received: number,
  tags: Tags,
  text: string,
): EventToWrite => {
  // The row's columns agree with its tags, as the digest builds them.
  const tag = (key: string) => tags.find(([t]) => t === key)?.[1] ?? null
  return row(p, k, hash, {
    title,
    culprit,
    received,
    timestamp: received,
    environment: tag('environment'),
    release: tag('release'),
    tags,
    text,
  })
}

/**
 * The shared corpus: three issues whose events carry tags and text, written in several group
 * commits (so the per-commit upserts meet existing rows), and C resolved.
 */
async function corpus(open: () => Promise<Store>) {
  const { store, project, key } = await openWithProject(open)
  const p = project.id
  const k = key.id
  const aText = 'TypeError x is undefined payInvoice cart.js'
  const aTags = (browser: string, user: string): Tags => [
    ['environment', 'production'],
    ['url', 'https://shop/checkout'],
    ['browser.name', browser],
    ['user', user],
    ['user.id', user.slice(3)],
  ]
  const bTags: Tags = [
    ['environment', 'staging'],
    ['release', 'shop@2.1.7'],
    ['browser.name', 'Safari'],
    ['user', 'email:bob@example.com'],
    ['user.email', 'bob@example.com'],
  ]
  const bText = 'ValueError bad amount 100% off_sale'
  const [c] = await store.write([
    {
      events: [
        ev(
          p,
          k,
          'c',
          C,
          'worker',
          T0 - 48 * HOUR,
          [['feature', 'batch']],
          'Timeout waiting for queue',
        ),
      ],
      outcomes: [],
    },
  ])
  await store.write([
    {
      events: [
        ev(p, k, 'a', A, 'checkout.js', T0, aTags('Chrome', 'id:1'), aText),
        ev(p, k, 'a', A, 'checkout.js', T0 + HOUR, aTags('Firefox', 'id:2'), aText),
      ],
      outcomes: [],
    },
  ])
  await store.write([
    {
      events: [
        ev(p, k, 'a', A, 'checkout.js', T0 + 2 * HOUR, aTags('Chrome', 'id:1'), aText),
        ev(p, k, 'b', B, 'billing.py', T0 + 3 * HOUR, bTags, bText),
      ],
      outcomes: [],
    },
    { events: [ev(p, k, 'b', B, 'billing.py', T0 + 4 * HOUR, bTags, bText)], outcomes: [] },
  ])
  await store.setIssueStatus(c?.events[0]?.issueId ?? 0, 'resolved')
  const titles = async (q: string, sort: IssueSort = 'last_seen') =>
    (await store.searchIssues(p, parseQuery(q, NOW), sort, { limit: 50 })).issues.map(
      (i) => i.title,
    )
  return { store, project, titles }
}

/**
 * The search every Store backend must answer alike (docs/search.md): one corpus, one table of
 * queries and their issues, run on SQLite (sqlite/search.test.ts) and PostgreSQL
 * (postgres/contract.test.ts).
 */
export function searchContract(name: string, open: () => Promise<Store>): void {
  describe(`search contract: ${name}`, () => {
    const cases: [string, string[]][] = [
      ['', [B, A, C]],
      ['browser.name:Chrome', [A]],
      ['browser.name:chrome', []],
      ['browser.name:[Safari, Chrome]', [B, A]],
      ['!browser.name:Chrome', [B, C]],
      ['has:browser.name', [B, A]],
      ['!has:user', [C]],
      ['url:*checkout*', [A]],
      ['url:*check', []],
      ['!url:*checkout*', [B, C]],
      ['browser.name:[Safari, Fire*]', [B, A]],
      ['!release:shop@2.1.*', [A, C]],
      ['release:shop@2.1.*', [B]],
      ['user.email:bob@example.com', [B]],
      ['environment:staging', [B]],
      ['feature:batch', [C]],
      ['typeerror', [A]],
      ['payinvoice', [A]],
      ['QUEUE', [C]],
      ['100%', [B]],
      ['off_sale', [B]],
      ['ba', [B]],
      ['nothing-matches-this', []],
      ['is:resolved', [C]],
      ['is:unresolved typeerror', [A]],
      ['!is:resolved has:user', [B, A]],
      ['firstSeen:-24h', [B, A]],
      ['lastSeen:+24h', [C]],
      ['times_seen:>1', [B, A]],
      ['times_seen:3', [A]],
      ['users:2', [A]],
      ['users:>=1', [B, A]],
      ['is:unresolved browser.name:Chrome lastSeen:-1d', [A]],
    ]
    it('answers the table of queries over the shared corpus', async () => {
      const { store, titles } = await corpus(open)
      const got: [string, string[]][] = []
      for (const [q] of cases) got.push([q, await titles(q)])
      expect(got).toEqual(cases)
      await store.close()
    })

    it('answers has: and !has: for a tag only a later event of the issue carried', async () => {
      const { store, project, key } = await openWithProject(open)
      const p = project.id
      const write = (hash: string, title: string, received: number, tags: Tags) =>
        store.write([
          { events: [ev(p, key.id, hash, title, 'x.js', received, tags, '')], outcomes: [] },
        ])
      // Two issues first seen with neither `user` (a promoted key) nor `team` (an SDK tag).
      await write('late', 'Late', T0, [['level', 'error']])
      await write('never', 'Never', T0 + 1, [['level', 'error']])
      const titles = async (q: string) =>
        (await store.searchIssues(p, parseQuery(q, NOW), 'first_seen', { limit: 10 })).issues.map(
          (i) => i.title,
        )
      const before = [
        await titles('has:user'),
        await titles('!has:user'),
        await titles('has:team'),
        await titles('!has:team'),
        await titles('has:level'),
      ]
      expect(before).toEqual([[], ['Never', 'Late'], [], ['Never', 'Late'], ['Never', 'Late']])
      // A later event of one of them, in its own group commit, carries both.
      await write('late', 'Late', T0 + HOUR, [
        ['level', 'error'],
        ['user', 'id:9'],
        ['team', 'payments'],
      ])
      const after = [
        await titles('has:user'),
        await titles('!has:user'),
        await titles('has:team'),
        await titles('!has:team'),
        await titles('has:level !has:user'),
      ]
      expect(after).toEqual([['Late'], ['Never'], ['Late'], ['Never'], ['Never']])
      await store.close()
    })

    it('matches free text holding U+0000 in titles, culprits and indexed text', async () => {
      const { store, project, key } = await openWithProject(open)
      const p = project.id
      await store.write([
        {
          events: [
            ev(p, key.id, 'nul-title', 'Drain\u0000Queue failed', 'pump.js', T0, [], 'Drain'),
            ev(
              p,
              key.id,
              'nul-text',
              'Worker stopped',
              'loop\u0000.js',
              T0 + 1,
              [],
              'w\u0000orker',
            ),
            ev(p, key.id, 'plain', 'drain queue', 'x.js', T0 + 2, [], 'drain queue'),
          ],
          outcomes: [],
        },
      ])
      // PostgreSQL keeps U+0000 as U+FFFD: titles are compared with either shown as `?`.
      const titles = async (q: string) =>
        (await store.searchIssues(p, parseQuery(q, NOW), 'first_seen', { limit: 10 })).issues.map(
          (i) => i.title.replaceAll('\u0000', '?').replaceAll('\ufffd', '?'),
        )
      const got = [
        await titles('n\u0000q'),
        await titles('p\u0000.js'),
        await titles('W\u0000OR'),
        await titles('x\u0000y'),
        await titles('drain'),
      ]
      expect(got).toEqual([
        ['Drain?Queue failed'],
        ['Worker stopped'],
        ['Worker stopped'],
        [],
        ['drain queue', 'Drain?Queue failed'],
      ])
      await store.close()
    })

    it('sorts by last seen, first seen, events and users, and pages by the sort key', async () => {
      const { store, project, titles } = await corpus(open)
      expect(await titles('', 'first_seen')).toEqual([B, A, C])
      expect(await titles('', 'times_seen')).toEqual([A, B, C])
      expect(await titles('', 'users')).toEqual([A, B, C])
      const seen: string[] = []
      let cursor: string | undefined
      do {
        const page = await store.searchIssues(project.id, { terms: [] }, 'users', {
          limit: 1,
          cursor,
        })
        seen.push(...page.issues.map((i) => i.title))
        cursor = page.next
      } while (cursor !== undefined && seen.length < 10)
      expect(seen).toEqual([A, B, C])
      await store.close()
    })

    it('counts distinct users and each tag value, with the top values per key', async () => {
      const { store, project } = await corpus(open)
      const [a] = (
        await store.searchIssues(project.id, parseQuery('typeerror', NOW), 'last_seen', {
          limit: 1,
        })
      ).issues
      expect(a?.users).toBe(2)
      const dist = await store.tagDistribution(a?.id ?? 0, 1)
      expect(dist).toEqual([
        { key: 'browser.name', total: 3, distinct: 2, top: [{ value: 'Chrome', count: 2 }] },
        { key: 'environment', total: 3, distinct: 1, top: [{ value: 'production', count: 3 }] },
        { key: 'url', total: 3, distinct: 1, top: [{ value: 'https://shop/checkout', count: 3 }] },
        { key: 'user', total: 3, distinct: 2, top: [{ value: 'id:1', count: 2 }] },
        { key: 'user.id', total: 3, distinct: 2, top: [{ value: '1', count: 2 }] },
      ])
      await store.close()
    })

    it('keeps the top values per key with ties by value, over keys with more values than the top', async () => {
      const { store, project, key } = await openWithProject(open)
      const shades = ['teal', 'amber', 'teal', 'amber', 'coral', 'navy', 'amber']
      await store.write([
        {
          events: shades.map((s, n) =>
            ev(
              project.id,
              key.id,
              'd',
              'D',
              'x.js',
              T0 + n,
              [
                ['shade', s],
                ['step', String(n)],
                ...(n % 2 === 0 ? ([['even', 'yes']] as Tags) : []),
              ],
              '',
            ),
          ),
          outcomes: [],
        },
      ])
      const [d] = (
        await store.searchIssues(project.id, parseQuery('', NOW), 'last_seen', { limit: 1 })
      ).issues
      expect(await store.tagDistribution(d?.id ?? 0, 2)).toEqual([
        { key: 'even', total: 4, distinct: 1, top: [{ value: 'yes', count: 4 }] },
        {
          key: 'shade',
          total: 7,
          distinct: 4,
          top: [
            { value: 'amber', count: 3 },
            { value: 'teal', count: 2 },
          ],
        },
        {
          key: 'step',
          total: 7,
          distinct: 7,
          top: [
            { value: '0', count: 1 },
            { value: '1', count: 1 },
          ],
        },
      ])
      expect(await store.tagDistribution((d?.id ?? 0) + 1000, 2)).toEqual([])
      await store.close()
    })

    it('shows at most TAG_DISTRIBUTION_KEYS keys of an issue with many: promoted first, then the most carried', async () => {
      const { store, project, key } = await openWithProject(open)
      // 600 distinct keys over 12 events of 50 tags (more than SQLite's 500 compound-SELECT
      // branches, one per key, that the distribution once was); `hot` on 3 events, `os.name`
      // (promoted) on one, every other key on one.
      let next = 0
      const events = Array.from({ length: 12 }, (_, n) => {
        const own: Tags = [
          ...(n < 3 ? ([['hot', 'yes']] as Tags) : []),
          ...(n === 11 ? ([['os.name', 'Linux']] as Tags) : []),
        ]
        while (own.length < 50) own.push([`k${String(next++).padStart(4, '0')}`, 'v'])
        return ev(project.id, key.id, 'many', 'M', 'm.js', T0 + n, own, '')
      })
      await store.write([{ events, outcomes: [] }])
      const [m] = (
        await store.searchIssues(project.id, parseQuery('', NOW), 'last_seen', { limit: 1 })
      ).issues
      const dist = await store.tagDistribution(m?.id ?? 0, 2)
      expect(dist).toHaveLength(TAG_DISTRIBUTION_KEYS)
      const keys = dist.map((d) => d.key)
      expect(keys).toEqual([...keys].sort())
      expect(keys).toContain('os.name')
      expect(dist.find((d) => d.key === 'hot')).toEqual({
        key: 'hot',
        total: 3,
        distinct: 1,
        top: [{ value: 'yes', count: 3 }],
      })
      // The rest by key, ties broken by name: k0000 … after `hot` and `os.name`.
      expect(keys.filter((k) => k.startsWith('k'))).toEqual(
        Array.from(
          { length: TAG_DISTRIBUTION_KEYS - 2 },
          (_, i) => `k${String(i).padStart(4, '0')}`,
        ),
      )
      await store.close()
    })

    it('indexes events stored before the search in bounded batches, once', async () => {
      const { store, project, key } = await openWithProject(open)
      const p = project.id
      // As an event stored before the search indexes: a payload but no tags, no events.search
      // (the last one's payload unreadable: indexed as an event without tags).
      const old = (user: string | undefined, received: number, browser = 'Firefox') =>
        row(p, key.id, 'old', {
          title: 'KeyError: missing sku',
          culprit: 'cart.py',
          received,
          timestamp: received,
          payload: JSON.stringify({
            level: 'error',
            tags: [['shard', '3']],
            ...(user === undefined ? {} : { user: { id: user } }),
            contexts: { browser: { name: browser } },
            exception: {
              values: [
                {
                  type: 'KeyError',
                  value: 'missing sku',
                  stacktrace: { frames: [{ function: 'loadCart', filename: 'cart.py' }] },
                },
              ],
            },
          }),
        })
      await store.write([
        {
          events: [old('7', T0), old('7', T0 + HOUR), old('8', T0 + 2 * HOUR, 'Safari')],
          outcomes: [],
        },
        { events: [{ ...old(undefined, T0 + 3 * HOUR), payload: 'not json' }], outcomes: [] },
      ])
      // An event stored since: indexed at ingest, left as it is by the backfill.
      await store.write([
        {
          events: [ev(p, key.id, 'new', 'New', 'x.js', T0, [['shard', '3']], 'fresh words')],
          outcomes: [],
        },
      ])
      const titles = async (q: string) =>
        (await store.searchIssues(p, parseQuery(q, NOW), 'last_seen', { limit: 10 })).issues.map(
          (i) => i.title,
        )
      expect(await titles('shard:3')).toEqual(['New'])
      expect(await titles('loadcart')).toEqual([])
      expect(await titles('has:user.id')).toEqual([])
      expect(await titles('!has:browser.name')).toEqual(['KeyError: missing sku', 'New'])

      // Batches of 2: the four old events take two full batches, the third finds none.
      expect(await runSearchBackfill(store, 10, 2)).toBe(4)
      expect(await titles('shard:3')).toEqual(['KeyError: missing sku', 'New'])
      expect(await titles('user.id:8')).toEqual(['KeyError: missing sku'])
      expect(await titles('loadcart')).toEqual(['KeyError: missing sku'])
      expect(await titles('has:user.id')).toEqual(['KeyError: missing sku'])
      expect(await titles('!has:browser.name')).toEqual(['New'])
      const [issue] = (
        await store.searchIssues(p, parseQuery('user.id:7', NOW), 'last_seen', { limit: 1 })
      ).issues
      expect(issue?.users).toBe(2)
      const id = issue?.id ?? 0
      const dist = async () =>
        (await store.tagDistribution(id, 5)).filter((d) =>
          ['browser.name', 'shard', 'user'].includes(d.key),
        )
      const expected = [
        {
          key: 'browser.name',
          total: 3,
          distinct: 2,
          top: [
            { value: 'Firefox', count: 2 },
            { value: 'Safari', count: 1 },
          ],
        },
        { key: 'shard', total: 3, distinct: 1, top: [{ value: '3', count: 3 }] },
        {
          key: 'user',
          total: 3,
          distinct: 2,
          top: [
            { value: 'id:7', count: 2 },
            { value: 'id:8', count: 1 },
          ],
        },
      ]
      expect(await dist()).toEqual(expected)
      const events = await store.searchIssueEvents(id, parseQuery('browser.name:Safari', NOW), {
        limit: 10,
      })
      expect(events.events.map((e) => e.received)).toEqual([T0 + 2 * HOUR])

      // Nothing is left: a second run indexes nothing and counts nothing twice.
      expect(await runSearchBackfill(store, 10, 2)).toBe(0)
      expect(await dist()).toEqual(expected)
      const [again] = (
        await store.searchIssues(p, parseQuery('user.id:7', NOW), 'last_seen', { limit: 1 })
      ).issues
      expect(again?.users).toBe(2)
      await store.close()
    })

    it('runs the backfill by itself once the server is ready (its leased job)', async () => {
      const { store, project, key } = await openWithProject(open)
      // No tags: stored as before the search.
      const early = row(project.id, key.id, 'early', {
        payload: JSON.stringify({ tags: [['shard', '9']] }),
      })
      await store.write([{ events: [early], outcomes: [] }])
      const found = async () =>
        (
          await store.searchIssues(project.id, parseQuery('shard:9', NOW), 'last_seen', {
            limit: 5,
          })
        ).issues.map((i) => i.title)
      expect(await found()).toEqual([])
      const app = Fastify()
      installSearchBackfill(app, store)
      await app.ready()
      // The job's first poll runs at once; waited for with a positive check, not a fixed sleep.
      let titles: string[] = []
      for (let i = 0; i < 300 && titles.length === 0; i++) {
        titles = await found()
        if (titles.length === 0) await new Promise((r) => setTimeout(r, 100))
      }
      expect(titles).toEqual(['title early'])
      await app.close()
      await store.close()
    })

    it("searches one issue's events by the same language, newest first, with paging", async () => {
      const { store, project } = await corpus(open)
      const [a] = (
        await store.searchIssues(project.id, parseQuery('typeerror', NOW), 'last_seen', {
          limit: 1,
        })
      ).issues
      const id = a?.id ?? 0
      const received = async (q: string, limit = 10) =>
        (await store.searchIssueEvents(id, parseQuery(q, NOW), { limit })).events.map(
          (e) => e.received,
        )
      expect(await received('browser.name:Firefox')).toEqual([T0 + HOUR])
      expect(await received('!browser.name:Firefox')).toEqual([T0 + 2 * HOUR, T0])
      expect(await received('user:id:1 boom')).toEqual([T0 + 2 * HOUR, T0])
      expect(await received('environment:production payinvoice')).toEqual([])
      expect(await received('environment:production')).toHaveLength(3)
      expect(await received('lastSeen:-4h')).toEqual([T0 + 2 * HOUR, T0 + HOUR])
      expect(await received('has:release')).toEqual([])
      const first = await store.searchIssueEvents(id, parseQuery('has:url', NOW), { limit: 2 })
      expect(first.events.map((e) => e.received)).toEqual([T0 + 2 * HOUR, T0 + HOUR])
      const rest = await store.searchIssueEvents(id, parseQuery('has:url', NOW), {
        limit: 2,
        cursor: first.next,
      })
      expect([rest.events.map((e) => e.received), rest.next]).toEqual([[T0], undefined])
      await store.close()
    })
  })
}
