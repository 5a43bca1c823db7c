// The server's Node flags are chosen by its backend: `npm start` and the bench pass these.
import { describe, expect, it } from 'vitest'
import {
  nodeFlagsFor,
  POSTGRES_SERVER_NODE_FLAGS,
  SERVER_NODE_FLAGS,
  serverNodeFlags,
} from './server-node-flags.mjs'

describe('the server Node flags', () => {
  it('give SQLite a 4 MiB young generation and PostgreSQL a 16 MiB one, one V8 helper each', () => {
    expect(serverNodeFlags({})).toEqual(['--max-semi-space-size=4', '--v8-pool-size=1'])
    expect(serverNodeFlags({ DATABASE_URL: '' })).toBe(SERVER_NODE_FLAGS)
    expect(serverNodeFlags({ DATABASE_URL: 'postgres://u@h/db' })).toEqual([
      '--max-semi-space-size=16',
      '--v8-pool-size=1',
    ])
    expect(serverNodeFlags({ DATABASE_URL: 'postgresql://u@h/db' })).toBe(
      POSTGRES_SERVER_NODE_FLAGS,
    )
    // The bench names its backend: the same choice.
    expect(nodeFlagsFor('postgres')).toBe(POSTGRES_SERVER_NODE_FLAGS)
    expect(nodeFlagsFor('sqlite')).toBe(SERVER_NODE_FLAGS)
  })
})
