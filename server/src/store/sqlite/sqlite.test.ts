import { storeContract } from '../../../test/store-contract/contract.ts'
import { openSqliteStore } from './index.ts'

storeContract('sqlite', () => openSqliteStore(':memory:'))
