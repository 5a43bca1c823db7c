import { storeContract } from '../contract.ts'
import { openSqliteStore } from './index.ts'

storeContract('sqlite', () => openSqliteStore(':memory:'))
