/**
 * Replays one fixture case (`fixtures/envelopes/…`) against a server and checks what it
 * expects: shared by the vitest suite (against the server it starts) and the conformance
 * runner (against any `--target`), so a fixture means the same thing in both.
 */
import { type ExpectStatic, expect as globalExpect } from 'vitest'
import type { Api, StoredEvent } from './api.ts'
import { type FixtureCase, sendEnvelope } from './fixtures.ts'
import { outcomeTotals, setQuota } from './outcomes.ts'
import { waitFor } from './wait.ts'

/** The server a fixture is replayed against. */
export interface FixtureServer {
  api: Api
  serverUrl: string
  adminToken: string
}

/** `{"$type": "number"}` in a `match` stands for any value of that type (values that vary). */
function expandMatchers(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(expandMatchers)
  if (typeof value !== 'object' || value === null) return value
  const entries = Object.entries(value)
  const [first] = entries
  if (entries.length === 1 && first !== undefined && first[0] === '$type') {
    const constructors: Record<string, unknown> = {
      number: Number,
      string: String,
      boolean: Boolean,
      object: Object,
      array: Array,
    }
    const ctor = constructors[String(first[1])]
    if (ctor === undefined) throw new Error(`unknown $type ${String(first[1])}`)
    return globalExpect.any(ctor)
  }
  // An event's `tags` hold the SDK's pairs among those the server derives from its fields
  // (level, url, browser …, as Sentry's stored event lists them): what a fixture names must be
  // there, in any order, beside the rest.
  return Object.fromEntries(
    entries.map(([key, inner]) => [
      key,
      key === 'tags' && Array.isArray(inner)
        ? globalExpect.arrayContaining(inner.map(expandMatchers))
        : expandMatchers(inner),
    ]),
  )
}

/** Sends the case's envelopes to a fresh project and checks responses, outcomes, events, issues. */
export async function runFixtureCase(
  server: FixtureServer,
  fixture: FixtureCase,
  expect: ExpectStatic,
): Promise<void> {
  const { api, serverUrl, adminToken } = server
  const { expected } = fixture
  const project = await api.createProject(`fixture-${fixture.id.replaceAll('/', '-')}`)
  const target = { url: serverUrl, projectId: project.id, dsn: project.dsn }
  if (expected.quota !== undefined)
    await setQuota(serverUrl, adminToken, project.id, expected.quota)
  for (const [index, envelope] of fixture.envelopes.entries()) {
    const response = await sendEnvelope(target, envelope, expected.send)
    const which = `response to envelope ${index + 1}: ${response.text}`
    const status = expected.response.statuses?.[index] ?? expected.response.status
    expect(response.status, which).toBe(status)
    if (expected.response.body !== undefined)
      expect(response.body, which).toEqual(expected.response.body)
    // Like an SDK, wait out an announced limit before sending the next envelope.
    const retryAfter = Number(response.headers.get('retry-after'))
    if (response.status === 429 && index < fixture.envelopes.length - 1 && retryAfter > 0) {
      await new Promise((resolve) => setTimeout(resolve, retryAfter * 1000))
    }
  }

  if (expected.outcomes !== undefined) {
    const key = (o: { outcome: string; reason: string; category: string }) =>
      `${o.outcome}|${o.reason}|${o.category}`
    const want = expected.outcomes
      .map((o) => ({ ...o, reason: o.reason ?? '' }))
      .sort((a, b) => key(a).localeCompare(key(b)))
    await waitFor(
      async () => {
        const got = (await outcomeTotals(serverUrl, adminToken, project.id))
          .map(({ outcome, reason, category, quantity }) => ({
            outcome,
            reason,
            category,
            quantity,
          }))
          .sort((a, b) => key(a).localeCompare(key(b)))
        expect(got, 'outcome counters').toEqual(want)
        return true
      },
      { message: 'outcomes match' },
    )
  }

  const events = expected.events
  if (events === undefined) return
  if (events.length === 0) {
    expect(await api.issues(project.id), 'no issue may be created').toEqual([])
    return
  }

  const stored = new Map<string, StoredEvent>()
  for (const want of events) {
    const event = await waitFor(() => api.event(project.id, want.event_id), {
      message: `event ${want.event_id} is stored`,
    })
    expect(event, `stored event ${want.event_id}`).toMatchObject(
      expandMatchers(want.match ?? {}) as object,
    )
    stored.set(want.event_id, event)
  }
  const issueOf = (eventId: string): string => String(stored.get(eventId)?.issue_id)

  const labelled = new Map<string, string>()
  for (const want of events) {
    if (want.issue === undefined) continue
    const seen = labelled.get(want.issue)
    if (seen === undefined) labelled.set(want.issue, issueOf(want.event_id))
    else expect(issueOf(want.event_id), `events labelled ${want.issue} share an issue`).toBe(seen)
  }
  const labelIssues = [...labelled.values()]
  expect(new Set(labelIssues).size, 'different labels are different issues').toBe(
    labelIssues.length,
  )

  const eventIssues = [...new Set(events.map((want) => issueOf(want.event_id)))].sort()
  await waitFor(
    async () => {
      const issues = await api.issues(project.id)
      expect(
        issues.map((issue) => String(issue.id)).sort(),
        "the project has exactly the events' issues",
      ).toEqual(eventIssues)
      for (const [label, want] of Object.entries(expected.issues ?? {})) {
        const issue = issues.find((candidate) => String(candidate.id) === labelled.get(label))
        expect(issue, `issue ${label}`).toMatchObject(want)
      }
      return true
    },
    { message: 'issues match' },
  )
}
