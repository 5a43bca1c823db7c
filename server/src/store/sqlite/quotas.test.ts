import { quotaContract } from '../../../test/store-contract/quotas-contract.ts'
import { openSqliteStore } from './index.ts'

quotaContract('sqlite', () => openSqliteStore(':memory:'))
