import { healthAndCronContract } from '../../../test/store-contract/health-crons-contract.ts'
import { openSqliteStore } from './index.ts'

healthAndCronContract('sqlite', () => openSqliteStore(':memory:'))
