/** A UTF-16 surrogate without its partner: not text, and no UTF-8 store keeps it as itself. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g

/**
 * `s` with each lone surrogate replaced by U+FFFD, what a UTF-8 store reads such a string back
 * as. For the names a client's data is found by (release, environment, dist): written as
 * received, a lone surrogate came back from the store as other characters than a filter or a
 * link built from the stored value asks for, so the release could be listed but not opened.
 */
export function wellFormed(s: string): string {
  LONE_SURROGATE.lastIndex = 0
  return LONE_SURROGATE.test(s) ? s.replace(LONE_SURROGATE, '\ufffd') : s
}
