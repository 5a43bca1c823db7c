import { z } from 'zod'

/**
 * A keyset paging cursor as the store writes them: `n` or `n:m` of decimal integers (times in
 * ms and row ids). Anything else is a 400 at the edge instead of reaching a store that would
 * read it as NaN. Empty means the first page (the UI's "First page" link).
 */
export const Cursor = z
  .string()
  .max(64)
  .regex(/^(\d{1,16}(:\d{1,16})?)?$/, 'invalid paging cursor')
  .transform((s) => (s === '' ? undefined : s))
