import { uiStoreContract } from '../../../test/store-contract/ui-contract.ts'
import { openSqliteStore } from './index.ts'

uiStoreContract('sqlite', () => openSqliteStore(':memory:'))
