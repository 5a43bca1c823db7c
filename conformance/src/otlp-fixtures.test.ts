import { describe, type ExpectStatic, inject, it } from 'vitest'
import { Api, parseDsn } from './harness/api.ts'
import { findSecrets } from './harness/fixture-check.ts'
import { fetchOutcomes, loadOtlpCases, type OtlpCase, sendOtlp } from './harness/otel.ts'
import { waitFor } from './harness/wait.ts'

const serverUrl = inject('serverUrl')
const adminToken = inject('adminToken')
const api = new Api(serverUrl, adminToken)
const cases = await loadOtlpCases()

async function runCase(fixture: OtlpCase, expect: ExpectStatic): Promise<void> {
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

describe.concurrent('OTLP fixtures', () => {
  it('finds the captured cases', () => {
    if (cases.length < 2)
      throw new Error(`expected the JSON and protobuf cases, found ${cases.length}`)
  })
  for (const fixture of cases) {
    it(`${fixture.id}: ${fixture.expected.description}`, async ({ expect }) => {
      await runCase(fixture, expect)
    })
  }
})
