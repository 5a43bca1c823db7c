/**
 * The one way the UI builds HTML: an `html` tagged template that escapes every interpolated
 * value unless it is already `SafeHtml` (the result of another `html` template). Event data is
 * untrusted, so nothing from an event can become markup; `raw()` exists only for our own
 * constant strings (CSS, the inline SVG we compute from numbers).
 */
import { escapeHtml } from '../http-kit/escape-html.ts'

/** Markup produced by `html` (or vouched for with `raw`); everything else gets escaped. */
export class SafeHtml {
  readonly value: string
  constructor(value: string) {
    this.value = value
  }
  toString(): string {
    return this.value
  }
}

/** What may be interpolated: text is escaped, `SafeHtml` kept, lists joined, nothing is ''. */
export type HtmlValue =
  | SafeHtml
  | string
  | number
  | bigint
  | false
  | null
  | undefined
  | readonly HtmlValue[]

function render(value: HtmlValue): string {
  if (value === null || value === undefined || value === false) return ''
  if (value instanceof SafeHtml) return value.value
  if (Array.isArray(value)) return value.map(render).join('')
  return escapeHtml(String(value))
}

/** The escaped-by-default template tag: `html\`<td>${event.message}</td>\``. */
export function html(strings: TemplateStringsArray, ...values: readonly HtmlValue[]): SafeHtml {
  let out = strings[0] ?? ''
  for (let i = 0; i < values.length; i++) {
    out += render(values[i] as HtmlValue) + (strings[i + 1] ?? '')
  }
  return new SafeHtml(out)
}

/** Marks a trusted constant as markup. Never pass anything derived from a request or event. */
export function raw(markup: string): SafeHtml {
  return new SafeHtml(markup)
}

/** Joins fragments with a separator (itself escaped unless SafeHtml). */
export function join(items: readonly HtmlValue[], separator: HtmlValue = ''): SafeHtml {
  const sep = render(separator)
  return new SafeHtml(items.map(render).join(sep))
}
