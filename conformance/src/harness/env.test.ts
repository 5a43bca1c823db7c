import { describe, expect, it } from 'vitest'
import { cleanEnv } from './env.ts'

describe('cleanEnv', () => {
  it('drops SDK, proxy and CI release variables in any case and keeps the rest', () => {
    const env = cleanEnv(
      { SENTRY_TEST_DSN: 'http://k@127.0.0.1:1/2' },
      {
        PATH: '/bin',
        HOME: '/root',
        SENTRY_DSN: 'x',
        sentry_release: 'x',
        SENTRY_TRACES_SAMPLE_RATE: '1',
        http_proxy: 'x',
        HTTPS_PROXY: 'x',
        No_Proxy: 'x',
        ALL_PROXY: 'x',
        GITHUB_SHA: 'abc',
        VERCEL_GIT_COMMIT_SHA: 'abc',
        NODE_OPTIONS: '--inspect',
        SENTRY_TEST_SDK: 'sentry-node-8',
      },
    )
    expect(env).toEqual({
      PATH: '/bin',
      HOME: '/root',
      SENTRY_TEST_SDK: 'sentry-node-8',
      SENTRY_TEST_DSN: 'http://k@127.0.0.1:1/2',
    })
  })
})
