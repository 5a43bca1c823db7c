import { healthAndCronContract } from '../health-crons-contract.ts'
import { openSqliteStore } from './index.ts'

healthAndCronContract('sqlite', () => openSqliteStore(':memory:'))
