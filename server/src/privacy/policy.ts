import { type FilterPolicy, filterPolicy } from './filters.ts'
import { type ScrubPolicy, scrubPolicy } from './scrub.ts'
import { NEW_PROJECT_PRIVACY, type PrivacySettings } from './settings.ts'

/** A project's settings prepared for the digest: scrub rules and filters. */
export interface PrivacyPolicy {
  readonly scrub: ScrubPolicy
  readonly filters: FilterPolicy
}

const byObject = new WeakMap<PrivacySettings, PrivacyPolicy>()
const byText = new Map<string, PrivacyPolicy>()

/**
 * The prepared policy of a settings object, built once: the same object (the main thread's
 * cached settings) is found by identity, a copy that crossed to another thread by its JSON.
 * Both caches are bounded by the number of distinct settings in use.
 */
export function policyOf(s: PrivacySettings | undefined): PrivacyPolicy {
  const settings = s ?? NEW_PROJECT_PRIVACY
  const hit = byObject.get(settings)
  if (hit !== undefined) return hit
  const text = JSON.stringify(settings)
  let p = byText.get(text)
  if (p === undefined) {
    p = { scrub: scrubPolicy(settings), filters: filterPolicy(settings.filters) }
    if (byText.size >= 1000) byText.clear()
    byText.set(text, p)
  }
  byObject.set(settings, p)
  return p
}
