import type { Access } from '../../src/http/route-access.ts'
import type { RouteEntry } from '../../src/route-table.ts'

const LOCATED: Record<string, string> = {
  projectId: 'the `:projectId` project',
  issueId: "the `:issueId` issue's project",
  teamId: 'the `:teamId` team',
}

/** One access rule in words, for the docs table. */
function describe(access: Access | undefined): [string, string] {
  if (access === undefined) return ['**none declared**', '']
  if (!('on' in access)) return [access.need, '']
  const on = access.on
  if ('query' in on) return [access.need, 'the `?project=` project']
  if ('newProjectTeam' in on) return [access.need, 'the team the project is created in']
  if ('teamSlug' in on) return [access.need, 'the team whose slug is `:org`']
  return [access.need, LOCATED[on.param] ?? on.param]
}

/**
 * The Markdown table of every route and what it needs, generated from the route table so
 * `docs/accounts.md` cannot drift from the declarations (the isolation test compares them).
 */
export function accessTable(routes: readonly RouteEntry[]): string {
  const rows = routes
    .filter((r) => r.method !== 'HEAD' && r.url !== '*')
    .map((r) => [r.method, `\`${r.url}\``, ...describe(r.access)])
    .sort((x, y) => {
      // Code-unit order, not localeCompare: the same on every machine and ICU build.
      const kx = `${x[1]} ${x[0]}`
      const ky = `${y[1]} ${y[0]}`
      return kx < ky ? -1 : kx > ky ? 1 : 0
    })
  const lines = [
    '| method | route | needs | on |',
    '| ------ | ----- | ----- | -- |',
    ...rows.map((r) => `| ${r.join(' | ')} |`),
  ]
  return lines.join('\n')
}

/** A Markdown table with cell padding and separator widths ignored (Biome aligns columns). */
export function normalizeTable(text: string): string {
  return text
    .trim()
    .split('\n')
    .map((line) =>
      line
        .split('|')
        .map((cell) => cell.trim().replace(/^:?-+:?$/, '-'))
        .join('|'),
    )
    .join('\n')
}
