/**
 * The report's human and CI forms: a Markdown summary (for a PR comment or a release note),
 * JUnit XML (one testcase per cell, which every CI system can display), and one static HTML
 * page with the SDK × scenario grid and each cell's evidence, readable without a server.
 */
import type { CellResult, CellStatus, Report } from './report.ts'

const MARK: Record<CellStatus, string> = {
  pass: '✅ pass',
  fail: '❌ fail',
  unsupported: '➖ not supported',
  'not-run': '⏸ not run',
}

const cellOf = (report: Report, row: string, scenario: string): CellResult | undefined =>
  report.cells.find((c) => c.row === row && c.scenario === scenario)

const mdEscape = (text: string): string => text.replaceAll('|', '\\|').replaceAll('\n', ' ')

type ReportRow = Report['rows'][number]

/** The heading a row is grouped under: its SDK, and the web framework when it runs an app. */
export function groupOf(row: ReportRow): string {
  const family = row.family ?? row.label
  return row.framework === undefined ? family : `${family} · ${row.framework}`
}

/** The report's rows grouped by {@link groupOf}, groups in order of their first row. */
export function rowGroups(report: Report): [string, ReportRow[]][] {
  const groups = new Map<string, ReportRow[]>()
  for (const row of report.rows) {
    const key = groupOf(row)
    groups.set(key, [...(groups.get(key) ?? []), row])
  }
  return [...groups]
}

/** One-line totals, the same wording everywhere. */
export function totalsLine(report: Report): string {
  const s = report.summary
  return `${s.pass} passed, ${s.fail} failed, ${s.unsupported} not supported, ${s.notRun} not run`
}

/** The Markdown summary: totals, the grid, then every failure and not-run cell with its reason. */
export function renderMarkdown(report: Report): string {
  const lines = [
    '# Conformance report',
    '',
    `Target \`${report.target.url}\`${report.target.startedByRunner ? ' (started by the runner)' : ''}, ${report.generatedAt}: ${totalsLine(report)}.`,
    '',
    `| SDK | ${report.scenarios.map((s) => s.id).join(' | ')} |`,
    `| --- | ${report.scenarios.map(() => '---').join(' | ')} |`,
  ]
  for (const [group, rows] of rowGroups(report)) {
    lines.push(`| **${mdEscape(group)}** | ${report.scenarios.map(() => '').join(' | ')} |`)
    for (const row of rows) {
      const version = row.sdk === undefined ? '' : ` (${row.sdk.package} ${row.sdk.version})`
      const cells = report.scenarios.map((s) => {
        const c = cellOf(report, row.id, s.id)
        return c === undefined ? '' : (MARK[c.status].split(' ')[0] ?? '')
      })
      lines.push(`| ${mdEscape(row.label + version)} | ${cells.join(' | ')} |`)
    }
  }
  lines.push('', '✅ pass · ❌ fail · ➖ not supported by that SDK · ⏸ not run', '')
  // Passing cells with something to say (e.g. what an app lacks when its SDK starts late).
  const noted = report.cells.filter((c) => c.status === 'pass' && c.reason !== undefined)
  if (noted.length > 0) {
    lines.push('## Notes on passing cells', '')
    for (const c of noted) lines.push(`- **${c.row} × ${c.scenario}**: ${mdEscape(c.reason ?? '')}`)
    lines.push('')
  }
  const notable = report.cells.filter((c) => c.status === 'fail' || c.status === 'not-run')
  if (notable.length > 0) {
    lines.push('## Failed and not run', '')
    for (const c of notable) {
      lines.push(`- **${c.row} × ${c.scenario}**: ${MARK[c.status]} — ${mdEscape(c.reason ?? '')}`)
    }
    lines.push('')
  }
  if (report.fixtures.length > 0) {
    const f = report.fixtures
    lines.push(
      '## Fixtures',
      '',
      `${f.filter((x) => x.status === 'pass').length} of ${f.length} cases passed.`,
      '',
    )
    for (const x of f.filter((y) => y.status !== 'pass')) {
      lines.push(`- **${x.id}**: ${MARK[x.status]} — ${mdEscape((x.reason ?? '').slice(0, 300))}`)
    }
    lines.push('')
  }
  return `${lines.join('\n')}\n`
}

/** Drops the characters XML 1.0 cannot carry (all C0 controls but tab, LF and CR). */
const xmlChars = (text: string): string =>
  [...text].filter((c) => c >= ' ' || c === '\t' || c === '\n' || c === '\r').join('')

const xml = (text: string): string =>
  xmlChars(text)
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')

/** JUnit XML: a suite per SDK row (and one for fixtures), a testcase per cell. */
export function renderJunit(report: Report): string {
  const suites: string[] = []
  const testcase = (
    suite: string,
    name: string,
    status: CellStatus,
    ms: number,
    reason = '',
    detail = '',
  ) => {
    const head = `    <testcase classname="${xml(suite)}" name="${xml(name)}" time="${(ms / 1000).toFixed(3)}"`
    if (status === 'pass') return `${head}/>`
    if (status === 'fail') {
      return `${head}>\n      <failure message="${xml(reason)}">${xml(detail)}</failure>\n    </testcase>`
    }
    return `${head}>\n      <skipped message="${xml(`${status}: ${reason}`)}"/>\n    </testcase>`
  }
  const groups = new Map<string, string[]>()
  for (const c of report.cells) {
    const list = groups.get(c.row) ?? []
    list.push(
      testcase(
        `conformance.${c.row}`,
        c.scenario,
        c.status,
        c.durationMs ?? 0,
        c.reason,
        c.evidence?.error ?? c.reason,
      ),
    )
    groups.set(c.row, list)
  }
  if (report.fixtures.length > 0) {
    groups.set(
      'fixtures',
      report.fixtures.map((f) =>
        testcase('conformance.fixtures', f.id, f.status, f.durationMs ?? 0, f.reason, f.reason),
      ),
    )
  }
  for (const [name, cases] of groups) {
    const all = [
      ...report.cells.filter((c) => c.row === name),
      ...(name === 'fixtures' ? report.fixtures : []),
    ]
    const failures = all.filter((c) => c.status === 'fail').length
    const skipped = all.filter((c) => c.status === 'unsupported' || c.status === 'not-run').length
    suites.push(
      `  <testsuite name="conformance.${xml(name)}" tests="${cases.length}" failures="${failures}" skipped="${skipped}">\n${cases.join('\n')}\n  </testsuite>`,
    )
  }
  const s = report.summary
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="conformance" tests="${s.pass + s.fail + s.unsupported + s.notRun}" failures="${s.fail}">\n${suites.join('\n')}\n</testsuites>\n`
}

const html = (text: string): string =>
  text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')

/** One self-contained HTML page: the grid, and each cell's evidence in a `<details>` below. */
export function renderHtml(report: Report): string {
  const anchor = (c: CellResult) => `cell-${c.row}-${c.scenario}`
  const head = report.scenarios
    .map((s) => `<th title="${html(s.title)}">${html(s.id)}</th>`)
    .join('')
  const groupRow = (group: string) =>
    `<tr class="group"><th colspan="${report.scenarios.length + 1}">${html(group)}</th></tr>`
  const body = rowGroups(report)
    .flatMap(([group, rows]) => [groupRow(group), ...rows.map((row) => ({ row }))])
    .map((entry) => {
      if (typeof entry === 'string') return entry
      const { row } = entry
      const version =
        row.sdk === undefined
          ? ''
          : `<br><small>${html(`${row.sdk.package} ${row.sdk.version}`)}</small>`
      const cells = report.scenarios
        .map((s) => {
          const c = cellOf(report, row.id, s.id)
          if (c === undefined) return '<td></td>'
          const label = MARK[c.status]
          const title = html(c.reason ?? '')
          return c.evidence === undefined
            ? `<td class="${c.status}" title="${title}">${label}</td>`
            : `<td class="${c.status}" title="${title}"><a href="#${anchor(c)}">${label}</a></td>`
        })
        .join('')
      return `<tr><th>${html(row.label)}${version}</th>${cells}</tr>`
    })
    .join('\n')
  const details = report.cells
    .filter((c) => c.evidence !== undefined || c.reason !== undefined)
    .map((c) => {
      const e = c.evidence
      const requests =
        e === undefined || e.requests.length === 0
          ? ''
          : `<table class="requests"><tr><th>at</th><th>request</th><th>items</th><th>encoding</th><th>status</th><th>ms</th><th>rate limits</th><th>answer</th></tr>${e.requests
              .map(
                (r) =>
                  `<tr><td>${html(r.at)}</td><td>${html(`${r.method} ${r.path}`)}</td><td>${html(r.itemTypes.join(', '))}</td><td>${html(r.encoding ?? '')}</td><td>${r.pending === true ? 'none yet' : r.status}</td><td>${r.ms === undefined ? '' : `${r.ms}${r.serverMs === undefined ? '' : ` (server ${r.serverMs})`}`}</td><td>${html([r.retryAfter ? `retry-after ${r.retryAfter}` : '', r.rateLimits ?? ''].filter(Boolean).join(' · '))}</td><td><code>${html(r.answer.slice(0, 200))}</code></td></tr>`,
              )
              .join('')}</table>`
      const readBack =
        e === undefined
          ? ''
          : e.readBack
              .map(
                (r) =>
                  `<h4>${html(r.label)}</h4><pre>${html(JSON.stringify(r.value, null, 2).slice(0, 20_000))}</pre>`,
              )
              .join('')
      const error = e?.error === undefined ? '' : `<h4>error</h4><pre>${html(e.error)}</pre>`
      const sdk = e?.sdk === undefined ? '' : ` — ${html(`${e.sdk.package} ${e.sdk.version}`)}`
      return `<details id="${anchor(c)}"${c.status === 'fail' ? ' open' : ''}><summary class="${c.status}">${html(`${c.row} × ${c.scenario}`)}: ${MARK[c.status]}${sdk}${c.reason === undefined ? '' : ` — ${html(c.reason)}`}</summary>${error}<h4>requests the SDK sent (through the recording proxy)</h4>${requests || '<p>none</p>'}${readBack}</details>`
    })
    .join('\n')
  const fixtures =
    report.fixtures.length === 0
      ? ''
      : `<h2>Fixtures</h2><table><tr><th>case</th><th>status</th><th>reason</th></tr>${report.fixtures
          .map(
            (f) =>
              `<tr><td>${html(f.id)}</td><td class="${f.status}">${MARK[f.status]}</td><td><pre>${html((f.reason ?? '').slice(0, 2000))}</pre></td></tr>`,
          )
          .join('')}</table>`
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Conformance report</title>
<style>
body{font:14px system-ui,sans-serif;margin:2em}table{border-collapse:collapse}
td,th{border:1px solid #ccc;padding:4px 8px;text-align:left;vertical-align:top}
.pass{background:#e6f4ea}.fail{background:#fce8e6}.unsupported{background:#f1f3f4;color:#666}.not-run{background:#fef7e0}
pre{white-space:pre-wrap;max-height:30em;overflow:auto;background:#f8f8f8;padding:6px}
details{margin:6px 0}summary{cursor:pointer;padding:4px}
tr.group th{background:#e8eaed;font-size:15px}
</style></head><body>
<h1>Conformance report</h1>
<p>Target <code>${html(report.target.url)}</code>, ${html(report.generatedAt)}: ${html(totalsLine(report))}. Report schema ${report.schemaVersion}.</p>
<table class="grid"><tr><th>SDK</th>${head}</tr>
${body}</table>
<h2>Cells</h2>
${details}
${fixtures}
</body></html>
`
}
