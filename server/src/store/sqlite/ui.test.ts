import { uiStoreContract } from '../ui-contract.ts'
import { openSqliteStore } from './index.ts'

uiStoreContract('sqlite', () => openSqliteStore(':memory:'))
