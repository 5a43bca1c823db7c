import { storeContract } from '../../../test/store-contract/contract.ts'
import { monitorContract } from '../../../test/store-contract/monitors-contract.ts'
import { releaseHealthContract } from '../../../test/store-contract/release-health-contract.ts'
import { searchContract } from '../../../test/store-contract/search-contract.ts'
import { openSqliteStore } from './index.ts'

// The contract suites with no SQLite-only cases beside them, on an in-memory database (the
// others run in quotas.test.ts, triage.test.ts, ui.test.ts, retention.test.ts and
// user-lifecycle.test.ts). writer-thread.test.ts runs them again on a file with its writer
// thread; postgres/contract.test.ts runs every suite on PostgreSQL.
const open = () => openSqliteStore(':memory:')
storeContract('sqlite', open)
releaseHealthContract('sqlite', open)
monitorContract('sqlite', open)
searchContract('sqlite', open)
