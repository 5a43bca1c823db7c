import type { Dialect } from './port.ts'
import { raw, type Statement, sql } from './statement.ts'

/**
 * `column` is one of `values`: the list is bound as ONE value, so a statement's text does not
 * change with the list's length (one prepared statement). SQLite unpacks a JSON array with
 * `json_each`, PostgreSQL casts an array parameter (`type` is its element type).
 */
export function inList(
  dialect: Dialect,
  column: string,
  values: readonly (string | number)[],
  type: 'text' | 'bigint',
): Statement {
  return dialect === 'sqlite'
    ? sql`${raw(column)} IN (SELECT value FROM json_each(${JSON.stringify(values)}))`
    : sql`${raw(column)} = ANY(${[...values]}::${raw(type)}[])`
}
