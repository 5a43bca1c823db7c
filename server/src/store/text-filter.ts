/**
 * The issue list's text filter, one rule for every backend: the query matches when it occurs
 * anywhere in the title or culprit, ignoring case, with `%`, `_` and `\` taken literally (a
 * user typing `100%` looks for that text, not a wildcard). Backends compare the pattern with
 * `LIKE … ESCAPE '\'` on SQLite (case-insensitive for ASCII) and `ILIKE … ESCAPE '\'` on
 * PostgreSQL; the pattern is lower-cased here so neither depends on the other's folding of
 * the query.
 */
export function substringPattern(query: string): string {
  return `%${query.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`
}
