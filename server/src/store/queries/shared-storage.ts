import type { SqlPort } from '../sql/port.ts'
import { accountQueries } from './accounts.ts'
import { alertOutboxQueries } from './alert-outbox.ts'
import { alertQueries } from './alerts.ts'
import { artifactQueries } from './artifacts.ts'
import { issueSearchQueries } from './issue-search.ts'
import { issueQueries } from './issues.ts'
import { liveQueries } from './live.ts'
import { loginFailureQueries } from './login-failures.ts'
import { monitorQueries } from './monitors.ts'
import { outcomeQueries } from './outcomes.ts'
import { privacyQueries } from './project-privacy.ts'
import { projectQueries } from './projects.ts'
import { quotaQueries } from './quotas.ts'
import { releaseFileQueries } from './release-files.ts'
import { releaseHealthQueries } from './release-health.ts'
import { releaseQueries } from './releases.ts'
import { searchBackfillQueries } from './search-backfill.ts'
import { teamQueries } from './teams.ts'
import { triageQueries } from './triage.ts'
import { uiReadQueries } from './ui-reads.ts'
import { uiSessionQueries } from './ui-sessions.ts'
import { userLifecycleQueries } from './user-lifecycle.ts'

/**
 * Every part of the store written once for both backends, on one port: each backend's index
 * spreads it and adds only what it writes its own way (the group commit's statements,
 * retention).
 */
export function sharedStorage(port: SqlPort) {
  return {
    ...projectQueries(port),
    ...accountQueries(port),
    ...uiSessionQueries(port),
    ...loginFailureQueries(port),
    ...uiReadQueries(port),
    ...quotaQueries(port),
    ...outcomeQueries(port),
    ...triageQueries(port),
    ...alertQueries(port),
    ...alertOutboxQueries(port),
    ...releaseHealthQueries(port),
    ...monitorQueries(port),
    ...liveQueries(port),
    ...userLifecycleQueries(port),
    ...teamQueries(port),
    ...privacyQueries(port),
    ...issueSearchQueries(port),
    ...issueQueries(port),
    ...searchBackfillQueries(port),
    ...artifactQueries(port),
    ...releaseQueries(port),
    ...releaseFileQueries(port),
  }
}
