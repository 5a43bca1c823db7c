/** A JSON object as client data holds it. */
export type Obj = Record<string, unknown>

/** Whether a client value is a JSON object (not null, not an array): every bag's first check. */
export const isObj = (v: unknown): v is Obj =>
  v !== null && typeof v === 'object' && !Array.isArray(v)
