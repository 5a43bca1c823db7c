/**
 * One SQL statement written once for both backends: the text pieces between its values, and the
 * values. Each backend renders the placeholders of its dialect (`?` for SQLite, `$n` for
 * PostgreSQL), so a query needs no copy per dialect and no value is ever spliced into the text.
 */
export interface Statement {
  readonly parts: readonly string[]
  readonly values: readonly unknown[]
}

/** A piece of SQL text taken as it is (a column list, a table name): never client data. */
export interface RawSql {
  readonly raw: string
}

const isStatement = (v: unknown): v is Statement =>
  typeof v === 'object' && v !== null && 'parts' in v && 'values' in v

const isRaw = (v: unknown): v is RawSql =>
  typeof v === 'object' && v !== null && 'raw' in v && !('parts' in v)

/**
 * The tag every shared query is written with: `sql\`SELECT * FROM teams WHERE id = ${id}\``.
 * An interpolated `Statement` (a fragment built the same way) is inlined with its own values;
 * `raw('…')` is inlined as text; anything else becomes a bound value.
 */
export function sql(strings: TemplateStringsArray, ...values: unknown[]): Statement {
  const parts: string[] = [strings[0] ?? '']
  const out: unknown[] = []
  values.forEach((v, i) => {
    const next = strings[i + 1] ?? ''
    if (isStatement(v)) {
      parts[parts.length - 1] += v.parts[0] ?? ''
      for (let j = 0; j < v.values.length; j++) {
        out.push(v.values[j])
        parts.push(v.parts[j + 1] ?? '')
      }
      parts[parts.length - 1] += next
    } else if (isRaw(v)) {
      parts[parts.length - 1] += v.raw + next
    } else {
      out.push(v)
      parts.push(next)
    }
  })
  return { parts, values: out }
}

/** Marks trusted SQL text (identifiers, column lists) for inlining by `sql`. */
export const raw = (text: string): RawSql => ({ raw: text })

/**
 * Joins fragments with a separator (`, ` for value lists, ` AND ` for conditions); an empty
 * list gives an empty fragment.
 */
export function join(fragments: readonly Statement[], separator: string): Statement {
  if (fragments.length === 0) return { parts: [''], values: [] }
  const parts: string[] = []
  const values: unknown[] = []
  fragments.forEach((f, i) => {
    const head = (i === 0 ? '' : separator) + (f.parts[0] ?? '')
    if (i === 0) parts.push(head)
    else parts[parts.length - 1] += head
    for (let j = 0; j < f.values.length; j++) {
      values.push(f.values[j])
      parts.push(f.parts[j + 1] ?? '')
    }
  })
  return { parts, values }
}

/** `?`-placeholder text (SQLite). */
export const renderQuestion = (s: Statement): string => s.parts.join('?')

/** `$n`-placeholder text (PostgreSQL). */
export function renderNumbered(s: Statement): string {
  let text = s.parts[0] ?? ''
  for (let i = 1; i < s.parts.length; i++) text += `$${i}${s.parts[i]}`
  return text
}
