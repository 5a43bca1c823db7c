/**
 * The `grouping` scenario's expected outcome, shared by every driver: the same exception
 * captured twice from one code path is one issue, and two messages differing only in a
 * number are another, each with both events.
 */
import type { ExpectStatic } from 'vitest'
import type { Api, Issue } from '../harness/api.ts'
import { type Driver, runDriver } from '../harness/drivers.ts'
import { waitFor } from '../harness/wait.ts'

/** Per-SDK expectations for the two issues. */
export interface GroupingExpectation {
  /** The exception issue's title starts with this (e.g. `Error: conformance boom`). */
  exceptionTitle: string
}

/** Creates a project, runs the driver's `grouping` scenario against it, checks the result. */
export async function checkGrouping(
  expect: ExpectStatic,
  api: Api,
  driver: Driver,
  sdk: string | undefined,
  expectation: GroupingExpectation,
): Promise<void> {
  const project = await api.createProject(`${driver.name}-${sdk ?? 'default'}-grouping`)
  const report = await runDriver(driver, {
    scenario: 'grouping',
    dsn: project.dsn,
    ...(sdk === undefined ? {} : { sdk }),
  })
  const exceptionIds = report.groups['exception'] ?? []
  const messageIds = report.groups['message'] ?? []
  expect(exceptionIds).toHaveLength(2)
  expect(messageIds).toHaveLength(2)

  const issues = await waitFor(
    async () => {
      const list = await api.issues(project.id)
      expect(list.map((issue) => issue.count)).toEqual([2, 2])
      return list
    },
    { timeout: 10_000, message: 'two issues with two events each' },
  )

  // Every id the SDK reported must be retrievable, and each group must be exactly one issue.
  const issueOf = new Map<string, string>()
  for (const eventId of report.event_ids) {
    const event = await api.event(project.id, eventId)
    expect(event, `event ${eventId} is retrievable`).toBeDefined()
    issueOf.set(eventId, String(event?.issue_id))
  }
  const exceptionIssues = new Set(exceptionIds.map((id) => issueOf.get(id)))
  const messageIssues = new Set(messageIds.map((id) => issueOf.get(id)))
  expect(exceptionIssues.size, 'both exceptions in one issue').toBe(1)
  expect(messageIssues.size, 'both messages in one issue').toBe(1)
  const [exceptionIssueId] = exceptionIssues
  const [messageIssueId] = messageIssues
  expect(exceptionIssueId).not.toBe(messageIssueId)

  const find = (id: string | undefined): Issue | undefined =>
    issues.find((issue) => String(issue.id) === id)
  const exceptionIssue = find(exceptionIssueId)
  const messageIssue = find(messageIssueId)
  expect(exceptionIssue?.title.startsWith(expectation.exceptionTitle), exceptionIssue?.title).toBe(
    true,
  )
  expect(exceptionIssue?.level).toBe('error')
  expect(messageIssue?.title).toMatch(/conformance order \S+ failed/)
  expect(messageIssue?.level).toBe('info')

  const listed = await api.issueEvents(exceptionIssueId ?? '')
  expect(listed.map((event) => event.event_id).sort()).toEqual([...exceptionIds].sort())
}
