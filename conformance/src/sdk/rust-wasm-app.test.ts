/**
 * A real wasm application on the first-party Rust SDK: `sdk-rust/examples/wasm-app`, a `cdylib`
 * crate depending on `ingest-sdk` with feature `web` (and nothing else: no
 * `default-features = false`), built by `wasm-pack build --target web`
 * (`scripts/test-rust.mjs --build wasm-app`) and loaded in headless Chromium from a page on
 * another origin than the server (driver `rust-wasm-app`). Its captured errors and its panic
 * land and group, and its session, released as `release_name!()`, reaches release health as
 * crashed.
 */
import { describe, inject, it } from 'vitest'
import { Api } from '../harness/api.ts'
import { runDriver } from '../harness/drivers.ts'
import { HealthApi } from '../harness/health-crons.ts'
import { buildRustDriver, RUST_BUILD_TIMEOUT } from '../harness/rust-builds.ts'
import { waitFor } from '../harness/wait.ts'

const serverUrl = inject('serverUrl')
const token = inject('adminToken')
const api = new Api(serverUrl, token)
const health = new HealthApi(serverUrl, token)

/** `release_name!()` in the app crate: its package name and version. */
const RELEASE = 'ingest-wasm-app@1.0.0'
const ERROR_TITLE = 'ingest_wasm_app::PaymentDeclined: payment declined (code 402)'

describe('ingest-sdk in a wasm-pack app (Chromium)', () => {
  it(
    'errors and a panic land and group; the crashed session reaches release health',
    async ({ expect }) => {
      const driver = await buildRustDriver('wasm-app', 'rust-wasm-app')
      const project = await api.createProject('rust-wasm-app')
      const report = await runDriver(driver, { scenario: 'app', dsn: project.dsn, timeout: 60_000 })
      expect(report.groups['exception']).toHaveLength(2)

      const issues = await waitFor(
        async () => {
          const list = await api.issues(project.id)
          return list.length >= 2 ? list : undefined
        },
        { timeout: 10_000, message: 'an error issue and a panic issue' },
      )
      expect(issues).toHaveLength(2)
      const error = issues.find((i) => i.title === ERROR_TITLE)
      expect(error, `issues: ${issues.map((i) => i.title).join(', ')}`).toMatchObject({
        count: 2,
        level: 'error',
      })
      const crash = issues.find((i) => i.title.startsWith('panic: item 7 is out of stock'))
      expect(crash, `issues: ${issues.map((i) => i.title).join(', ')}`).toMatchObject({
        count: 1,
        level: 'fatal',
      })

      const [first] = report.groups['exception'] ?? []
      const event = await api.event(project.id, first ?? '')
      expect(event).toMatchObject({
        issue_id: error?.id,
        release: RELEASE,
        environment: 'browser',
        tags: expect.arrayContaining([['app', 'wasm-app']]),
        breadcrumbs: { values: [{ message: 'checkout with code 402' }] },
      })

      const h = await waitFor(
        async () => {
          const found = await health.releaseHealth(project.id, RELEASE)
          return found !== undefined && found.sessions_crashed > 0 ? found : undefined
        },
        { timeout: 10_000, message: `crashed session of ${RELEASE}` },
      )
      expect(h).toMatchObject({ sessions: 1, sessions_crashed: 1, crash_free_sessions: 0 })
    },
    RUST_BUILD_TIMEOUT,
  )
})
