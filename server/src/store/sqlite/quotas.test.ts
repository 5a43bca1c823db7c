import { quotaOutcomeContract } from '../quota-outcome-contract.ts'
import { openSqliteStore } from './index.ts'

quotaOutcomeContract('sqlite', () => openSqliteStore(':memory:'))
