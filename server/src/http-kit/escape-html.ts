/**
 * HTML escaping, written once: the UI's `html` template (`ui/html.ts`) and the API reference
 * page both use it. Backticks are escaped too (old browsers took them as attribute quotes).
 */
const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
  '`': '&#96;',
}

/** Escapes text for element content and quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"'`]/g, (c) => ESCAPES[c] ?? c)
}
