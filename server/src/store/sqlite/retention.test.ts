import { retentionContract } from '../../../test/store-contract/retention-contract.ts'
import { openSqliteStore } from './index.ts'

retentionContract('sqlite', () => openSqliteStore(':memory:'))
