import { userLifecycleContract } from '../../../test/store-contract/user-lifecycle-contract.ts'
import { openSqliteStore } from './index.ts'

userLifecycleContract('sqlite', () => openSqliteStore(':memory:'))
