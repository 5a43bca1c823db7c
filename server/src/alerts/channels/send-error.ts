/** A failed send; `permanent` says that retrying cannot help (the receiver refused it). */
export class SendError extends Error {
  readonly permanent: boolean

  constructor(message: string, permanent: boolean) {
    super(message)
    this.name = 'SendError'
    this.permanent = permanent
  }
}

/** A short description of a network or library error for the delivery log. */
export function describeError(err: unknown): string {
  if (!(err instanceof Error)) return String(err)
  const cause = (err as { cause?: unknown }).cause
  const code =
    cause instanceof Error ? ((cause as { code?: unknown }).code ?? cause.message) : undefined
  return typeof code === 'string' && code !== '' ? `${err.message} (${code})` : err.message
}
