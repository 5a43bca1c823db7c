/**
 * Top-level interface names of old clients (raven-python, raven-js, raven-ruby…) and the
 * field each stands for, as Relay reads them (`legacy_alias` on relay-event-schema's `Event`).
 * Without this, an old client's exception or message is not seen at all: the event has no
 * title and its stack trace is kept only as an unknown key.
 */
const LEGACY_ALIASES: Readonly<Record<string, string>> = {
  'sentry.interfaces.Message': 'logentry',
  'sentry.interfaces.Exception': 'exception',
  'sentry.interfaces.Stacktrace': 'stacktrace',
  'sentry.interfaces.User': 'user',
  'sentry.interfaces.Http': 'request',
  'sentry.interfaces.Contexts': 'contexts',
  'sentry.interfaces.Breadcrumbs': 'breadcrumbs',
  'sentry.interfaces.Template': 'template',
  'sentry.interfaces.Csp': 'csp',
}

/** The legacy name of a frame list inside an exception (relay-event-schema `Exception`). */
export const LEGACY_STACKTRACE = 'sentry.interfaces.Stacktrace'

/**
 * The event with each legacy interface key renamed to its field; the field wins where an event
 * has both (the legacy copy is dropped). Returns `raw` itself, uncopied, when it has no legacy
 * key, which is every event of a current SDK.
 */
export function resolveLegacyAliases(raw: Record<string, unknown>): Record<string, unknown> {
  let out: Record<string, unknown> | undefined
  for (const k in raw) {
    if (!k.startsWith('sentry.interfaces.') || !Object.hasOwn(LEGACY_ALIASES, k)) continue
    out ??= { ...raw }
    const field = LEGACY_ALIASES[k] as string
    if (out[field] === undefined || out[field] === null) out[field] = raw[k]
    delete out[k]
  }
  return out ?? raw
}
