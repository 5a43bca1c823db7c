/**
 * Renders a log message template with its parameters, for a `logentry` sent without
 * `formatted` (sentry-python 1.x's logging integration, raven clients, Java's `{}` templates,
 * .NET's `{0}`), as Relay's `normalize_logentry` does: a template holding `%` is formatted
 * printf-style (Python's `%s`, `%d`, `%(name)s`…), else one holding `{` curly-style (`{}`,
 * `{0}`, `{name}`). Any mismatch (too few parameters, a number conversion of a non-number, an
 * unknown conversion) gives undefined, and the template is shown as it is, as in Relay.
 */
export function formatLogMessage(template: string, params: unknown): string | undefined {
  if (template.includes('%')) return formatPercent(template, params)
  if (template.includes('{')) return formatCurly(template, params)
  return undefined
}

/** The longest rendered message kept (the `formatted` bound of normalisation). */
const MAX_FORMATTED = 8192

// Bounded name and flags: an 8 KiB template of unclosed `%(` must not cost quadratic time.
const PERCENT = /%(?:\(([^)]{0,128})\))?([-+ #0]{0,8})(\d{1,4})?(?:\.(\d{1,4}))?([a-zA-Z%])/g

function formatPercent(template: string, params: unknown): string | undefined {
  let next = 0
  let failed = false
  const out = template.replace(PERCENT, (_m, name: string | undefined, _f, _w, prec, conv) => {
    if (conv === '%') return '%'
    const arg = name !== undefined ? keyed(params, name) : indexed(params, next++)
    const s = arg === undefined ? undefined : convert(arg.value, conv as string, prec)
    if (s === undefined) failed = true
    return s ?? ''
  })
  return failed ? undefined : out.slice(0, MAX_FORMATTED)
}

const CURLY = /\{\{|\}\}|\{([^{}]*)\}/g

function formatCurly(template: string, params: unknown): string | undefined {
  let next = 0
  let failed = false
  const out = template.replace(CURLY, (m, key: string | undefined) => {
    if (m === '{{') return '{'
    if (m === '}}') return '}'
    const k = key ?? ''
    const arg =
      k === ''
        ? indexed(params, next++)
        : /^\d+$/.test(k)
          ? indexed(params, Number(k))
          : keyed(params, k)
    if (arg === undefined) failed = true
    return arg === undefined ? '' : display(arg.value)
  })
  return failed ? undefined : out.slice(0, MAX_FORMATTED)
}

/**
 * The parameters a template's placeholders take, in order, with where each placeholder starts
 * (the same reading as {@link formatLogMessage}: printf-style when the template holds `%`, else
 * curly-style): a position in the list, or a name. For the scrubber, which filters the
 * parameter a placeholder after a secret's name takes (`token=%s`).
 */
export function placeholders(template: string): { at: number; arg: number | string }[] {
  const out: { at: number; arg: number | string }[] = []
  if (template.includes('%')) {
    let next = 0
    for (const m of template.matchAll(PERCENT)) {
      if (m[5] === '%') continue
      out.push({ at: m.index, arg: m[1] !== undefined ? m[1] : next++ })
    }
  } else if (template.includes('{')) {
    let next = 0
    for (const m of template.matchAll(CURLY)) {
      if (m[0] === '{{' || m[0] === '}}') continue
      const k = m[1] ?? ''
      out.push({ at: m.index, arg: k === '' ? next++ : /^\d+$/.test(k) ? Number(k) : k })
    }
  }
  return out
}

function indexed(params: unknown, i: number): { value: unknown } | undefined {
  return Array.isArray(params) && i < params.length ? { value: params[i] } : undefined
}

function keyed(params: unknown, key: string): { value: unknown } | undefined {
  if (params === null || typeof params !== 'object' || Array.isArray(params)) return undefined
  return Object.hasOwn(params, key)
    ? { value: (params as Record<string, unknown>)[key] }
    : undefined
}

/** A parameter as text: strings as they are, anything else as JSON. */
function display(v: unknown): string {
  if (typeof v === 'string') return v
  return JSON.stringify(v) ?? String(v)
}

function convert(v: unknown, conv: string, precision: string | undefined): string | undefined {
  const prec = precision === undefined ? undefined : Math.min(Number(precision), 100)
  switch (conv) {
    case 's':
    case 'r':
    case 'a': {
      const s = display(v)
      return prec === undefined ? s : s.slice(0, prec)
    }
    case 'd':
    case 'i':
    case 'u':
      return typeof v === 'number' && Number.isFinite(v) ? String(Math.trunc(v)) : undefined
    case 'f':
    case 'F':
      return typeof v === 'number' && Number.isFinite(v) ? v.toFixed(prec ?? 6) : undefined
    case 'e':
    case 'E': {
      if (typeof v !== 'number' || !Number.isFinite(v)) return undefined
      const s = v.toExponential(prec ?? 6).replace(/e([+-])(\d)$/, 'e$10$2')
      return conv === 'E' ? s.toUpperCase() : s
    }
    case 'g':
    case 'G':
      return typeof v === 'number' && Number.isFinite(v) ? String(v) : undefined
    case 'x':
    case 'X':
    case 'o': {
      if (typeof v !== 'number' || !Number.isInteger(v)) return undefined
      const s = v.toString(conv === 'o' ? 8 : 16)
      return conv === 'X' ? s.toUpperCase() : s
    }
    default:
      return undefined
  }
}
