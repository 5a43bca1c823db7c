/**
 * The one place a store contract case may be skipped on a backend: full test name (as vitest
 * prints it, suite names joined by " > ") → the reason. Both backends run every contract case;
 * this list is empty and a new entry needs a reason a reviewer accepts.
 */
export const BACKEND_SKIPS: Record<'sqlite' | 'postgres', Record<string, string>> = {
  sqlite: {},
  postgres: {},
}
