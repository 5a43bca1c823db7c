/**
 * Replays one captured OTLP export (`fixtures/otlp/`) against a server and checks what it
 * expects: shared by the vitest suite and the conformance runner's `--fixtures`.
 */
import type { ExpectStatic } from 'vitest'
import { parseDsn } from './api.ts'
import { findSecrets } from './fixture-check.ts'
import type { FixtureServer } from './fixture-run.ts'
import { fetchOutcomes, type OtlpCase, sendOtlp } from './otel.ts'
import { waitFor } from './wait.ts'

/** Sends the captured export to a fresh project; checks the answer, issues, events, outcomes. */
export async function runOtlpFixtureCase(
  server: FixtureServer,
  fixture: OtlpCase,
  expect: ExpectStatic,
): Promise<void> {
  const { api, serverUrl, adminToken } = server
  const { expected } = fixture
  expect(findSecrets(fixture.body.toString('latin1')), 'no real keys in the bytes').toEqual([])
  const project = await api.createProject(`otlp-fixture-${fixture.id}`)
  const { publicKey } = parseDsn(project.dsn)
  const target = { url: serverUrl, projectId: project.id, publicKey }
  const response = await sendOtlp(target, fixture.body, fixture.contentType, expected.send)
  const text = response.body.toString('utf8')
  expect(response.status, `answer: ${text}`).toBe(expected.response.status)
  if (expected.response.contentType !== undefined) {
    expect(response.contentType).toBe(expected.response.contentType)
  }
  if (expected.response.json !== undefined) expect(JSON.parse(text)).toEqual(expected.response.json)
  if (expected.response.hex !== undefined) {
    expect(response.body.toString('hex')).toBe(expected.response.hex)
  }

  const issues = await waitFor(
    async () => {
      const list = await api.issues(project.id)
      expect(list).toHaveLength(expected.issues.length)
      return list
    },
    { message: `${expected.issues.length} issue(s)` },
  )
  for (const want of expected.issues) {
    const issue = issues.find((candidate) => candidate.title === want.title)
    expect(issue, `issue "${want.title}" among ${issues.map((i) => i.title)}`).toBeDefined()
    if (issue === undefined) continue
    expect(issue).toMatchObject({
      level: want.level,
      count: want.count,
      ...(want.culprit !== undefined ? { culprit: want.culprit } : {}),
    })
    if (want.event === undefined) continue
    const refs = await api.issueEvents(issue.id)
    expect(refs).toHaveLength(want.count)
    for (const ref of refs) {
      const event = await api.event(project.id, ref.event_id)
      expect(event, `event ${ref.event_id} of "${want.title}"`).toMatchObject(want.event)
    }
  }

  const outcomes = await fetchOutcomes(serverUrl, adminToken, project.id)
  const rows = outcomes.map(({ outcome, reason, category, quantity }) => ({
    outcome,
    reason,
    category,
    quantity,
  }))
  expect(rows).toEqual(expect.arrayContaining(expected.outcomes))
  expect(rows).toHaveLength(expected.outcomes.length)
}
