import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'

// The shipped alert rules (docs/prometheus/alerts.yml), checked and unit-tested by Debian's
// promtool (package `prometheus`, installed by .ci/run): the file the docs link is the file
// tested, so the two cannot drift.
const RULES = 'docs/prometheus/alerts.yml'
const RULE_TESTS = 'docs/prometheus/alerts.test.yml'

const promtool = (...args: string[]) =>
  execFileSync('promtool', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })

describe('the shipped Prometheus alert rules', () => {
  it('pass promtool check rules, with the six alerts the operations guide describes', () => {
    expect(promtool('check', 'rules', RULES)).toContain('SUCCESS: 6 rules found')
    const names = [...readFileSync(RULES, 'utf8').matchAll(/- alert: (\w+)/g)].map((m) => m[1])
    expect(names).toEqual([
      'IngestShedding',
      'IngestGroupCommitSlow',
      'IngestDiskGuardActive',
      'IngestPostgresPoolSaturated',
      'IngestAlertDeliveriesFailing',
      'IngestCronClockStalled',
    ])
    const guide = readFileSync('docs/operations.md', 'utf8')
    expect(guide).toContain('(prometheus/alerts.yml)')
    for (const n of names) expect(guide).toContain(`\`${n}\``)
  })

  it('each fire when they should and not before (promtool test rules)', () => {
    const tests = readFileSync(RULE_TESTS, 'utf8')
    // Every alert has a firing case in the unit tests.
    for (const m of readFileSync(RULES, 'utf8').matchAll(/- alert: (\w+)/g)) {
      expect(tests).toContain(`alertname: ${m[1]}`)
    }
    expect(promtool('test', 'rules', RULE_TESTS)).toContain('SUCCESS')
  })

  it('promtool test rules fails when a rule does not fire as expected (positive control)', () => {
    const broken = readFileSync(RULE_TESTS, 'utf8').replace(
      'a refuses events: disk space below the guard',
      'something else',
    )
    expect(broken).not.toBe(readFileSync(RULE_TESTS, 'utf8'))
    const dir = mkdtempSync(join(tmpdir(), 'ingest-rules-'))
    let failed = ''
    try {
      const file = join(dir, 'broken.test.yml')
      writeFileSync(file, broken.replace('  - alerts.yml', `  - ${resolve(RULES)}`))
      promtool('test', 'rules', file)
    } catch (err) {
      const e = err as { stdout?: string; stderr?: string }
      failed = `${e.stdout ?? ''}${e.stderr ?? ''}`
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
    expect(failed).toContain('FAILED')
    expect(failed).toContain('IngestDiskGuardActive')
  })
})
