/**
 * The environment SDK and server child processes run with.
 *
 * Stock SDKs read configuration from the environment behind our back: `SENTRY_DSN`,
 * `SENTRY_RELEASE` and friends; JS and Go fill a missing release from CI commit variables;
 * every HTTP client honours some spelling of the proxy variables, and a proxy would swallow
 * requests to 127.0.0.1. So children start from the parent environment minus all of those.
 */

/** Proxy variables, compared lower-cased (urllib3 reads any case, Node's SDK only lower case). */
const PROXY_VARS = new Set([
  'http_proxy',
  'https_proxy',
  'all_proxy',
  'no_proxy',
  'ftp_proxy',
  'socks_proxy',
  'npm_config_proxy',
  'npm_config_https_proxy',
])

/**
 * Variables SDKs turn into a release or environment when none is configured (see sdks.md §8;
 * JS `getSentryRelease`, sentry-go `defaultRelease`).
 */
const CI_RELEASE_VARS = new Set([
  'GITHUB_SHA',
  'CI_COMMIT_SHA',
  'CI_BUILD_REF',
  'CIRCLE_SHA1',
  'TRAVIS_COMMIT',
  'TRAVIS_PULL_REQUEST_SHA',
  'BITBUCKET_COMMIT',
  'BUILDKITE_COMMIT',
  'DRONE_COMMIT_SHA',
  'CODEBUILD_RESOLVED_SOURCE_VERSION',
  'COMMIT_REF',
  'HEROKU_SLUG_COMMIT',
  'HEROKU_BUILD_COMMIT',
  'SOURCE_VERSION',
  'VERCEL_GIT_COMMIT_SHA',
  'RENDER_GIT_COMMIT',
  'CF_PAGES_COMMIT_SHA',
  'ZEIT_GITHUB_COMMIT_SHA',
  'ZEIT_GITLAB_COMMIT_SHA',
  'ZEIT_BITBUCKET_COMMIT_SHA',
  'APPVEYOR_REPO_COMMIT',
  'SEMAPHORE_GIT_SHA',
  'CF_REVISION',
  'CM_COMMIT',
  'FC_GIT_COMMIT_SHA',
  'RAILWAY_GIT_COMMIT_SHA',
  'AWS_COMMIT_ID',
  'GIT_COMMIT',
])

/** Why a variable must not reach a child, or undefined when it may. */
export function blockedReason(name: string): string | undefined {
  const lower = name.toLowerCase()
  const upper = name.toUpperCase()
  // SENTRY_TEST_* are the harness's own driver inputs (DSN, SDK package); no SDK reads them.
  if (upper.startsWith('SENTRY_') && !upper.startsWith('SENTRY_TEST_')) return 'SDK configuration'
  if (PROXY_VARS.has(lower)) return 'proxy'
  if (CI_RELEASE_VARS.has(upper)) return 'CI release source'
  // Vitest and tsx markers would make a child believe it runs inside a test worker.
  if (name.startsWith('VITEST') || name === 'TEST' || name === 'NODE_OPTIONS') return 'test runner'
  return undefined
}

/**
 * A copy of `base` (default: this process's environment) without SDK, proxy and CI-release
 * variables, plus `extra`. Pass the result with `extendEnv: false` so nothing leaks back in.
 */
export function cleanEnv(
  extra: Record<string, string> = {},
  base: NodeJS.ProcessEnv = process.env,
): Record<string, string> {
  const env: Record<string, string> = {}
  for (const [name, value] of Object.entries(base)) {
    if (value !== undefined && blockedReason(name) === undefined) env[name] = value
  }
  return { ...env, ...extra }
}
