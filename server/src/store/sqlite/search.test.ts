import { searchContract } from '../../../test/store-contract/search-contract.ts'
import { openSqliteStore } from './index.ts'

searchContract('sqlite', () => openSqliteStore(':memory:'))
