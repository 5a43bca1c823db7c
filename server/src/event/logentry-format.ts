/** The longest rendered message kept (the `formatted` bound of normalisation). */
const MAX_FORMATTED = 8192

// Bounded name and flags: an 8 KiB template of unclosed `%(` must not cost quadratic time.
const PERCENT = /%(?:\(([^)]{0,128})\))?([-+ #0]{0,8})(\d{1,4})?(?:\.(\d{1,4}))?([a-zA-Z%])/g

const CURLY = /\{\{|\}\}|\{([^{}]*)\}/g

/**
 * One mark of a template, from `at` to `end`: an escape that stands for `literal` (`%%`, `{{`,
 * `}}`), or a placeholder taking parameter `arg` (a position in the list, or a name), with a
 * printf conversion and precision.
 */
type Mark = { at: number; end: number } & (
  | { literal: string }
  | { arg: number | string; conv?: string | undefined; prec?: string | undefined }
)

/**
 * The marks of a template, the one reading both rendering and the scrubber use: printf-style
 * when it holds `%`, else curly-style when it holds `{`, else none. Positional placeholders
 * take the parameters in order; `%(name)s` and `{name}` take a key, `{0}` an index.
 */
function marks(template: string): Mark[] | undefined {
  const out: Mark[] = []
  let next = 0
  if (template.includes('%')) {
    for (const m of template.matchAll(PERCENT)) {
      const [text, name, , , prec, conv] = m
      const at = m.index
      const end = at + text.length
      if (conv === '%') out.push({ at, end, literal: '%' })
      else out.push({ at, end, arg: name !== undefined ? name : next++, conv, prec })
    }
    return out
  }
  if (template.includes('{')) {
    for (const m of template.matchAll(CURLY)) {
      const at = m.index
      const end = at + m[0].length
      if (m[0] === '{{' || m[0] === '}}') {
        out.push({ at, end, literal: m[0][0] as string })
        continue
      }
      const k = m[1] ?? ''
      out.push({ at, end, arg: k === '' ? next++ : /^\d+$/.test(k) ? Number(k) : k })
    }
    return out
  }
  return undefined
}

/**
 * Renders a log message template with its parameters, for a `logentry` sent without
 * `formatted` (sentry-python 1.x's logging integration, raven clients, Java's `{}` templates,
 * .NET's `{0}`), as Relay's `normalize_logentry` does: a template holding `%` is formatted
 * printf-style (Python's `%s`, `%d`, `%(name)s`…), else one holding `{` curly-style (`{}`,
 * `{0}`, `{name}`). Any mismatch (too few parameters, a number conversion of a non-number, an
 * unknown conversion) gives undefined, and the template is shown as it is, as in Relay.
 */
export function formatLogMessage(template: string, params: unknown): string | undefined {
  const found = marks(template)
  if (found === undefined) return undefined
  let out = ''
  let from = 0
  for (const m of found) {
    out += template.slice(from, m.at)
    from = m.end
    if ('literal' in m) {
      out += m.literal
      continue
    }
    const arg = typeof m.arg === 'string' ? keyed(params, m.arg) : indexed(params, m.arg)
    if (arg === undefined) return undefined
    const text = m.conv === undefined ? display(arg.value) : convert(arg.value, m.conv, m.prec)
    if (text === undefined) return undefined
    out += text
  }
  return (out + template.slice(from)).slice(0, MAX_FORMATTED)
}

/**
 * The parameters a template's placeholders take, in order, with where each placeholder starts
 * (the reading {@link formatLogMessage} renders with): a position in the list, or a name. For
 * the scrubber, which filters the parameter a placeholder after a secret's name takes
 * (`token=%s`).
 */
export function placeholders(template: string): { at: number; arg: number | string }[] {
  const out: { at: number; arg: number | string }[] = []
  for (const m of marks(template) ?? []) if (!('literal' in m)) out.push({ at: m.at, arg: m.arg })
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
