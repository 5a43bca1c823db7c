import { quotaOutcomeContract } from '../../../test/store-contract/quota-outcome-contract.ts'
import { openSqliteStore } from './index.ts'

quotaOutcomeContract('sqlite', () => openSqliteStore(':memory:'))
