import { LRUCache } from 'lru-cache'
import type { PrivacySettings } from './settings.ts'

/**
 * How a project's privacy settings cross to another thread with a batch of work (the SQLite
 * writer's units, the digest threads' jobs): each distinct settings object once per batch, as
 * its JSON text, and every unit or job refers to it by index. Sending the object with each unit
 * cost a `JSON.stringify` and a `JSON.parse` of it per request on the two sides, and a fresh
 * object per unit made the digest's prepared-policy cache (policy.ts) stringify it again per
 * event to find it.
 */
export class SettingsTable {
  private readonly index = new Map<PrivacySettings | null, number>()
  /** The distinct settings in first-use order, as JSON text (`null`: a new project's). */
  readonly texts: (string | null)[] = []

  /** The index of `s` in this batch's table, added on first use. */
  ref(s: PrivacySettings | null | undefined): number {
    const key = s ?? null
    let i = this.index.get(key)
    if (i === undefined) {
      i = this.texts.length
      this.texts.push(key === null ? null : JSON.stringify(key))
      this.index.set(key, i)
    }
    return i
  }
}

// Settings read back on this thread, by their text: the same text gives the same object batch
// after batch, so policy.ts finds its prepared policy by identity. Bounded: a project's
// settings change rarely, and a miss only costs one parse.
const interned = new LRUCache<string, PrivacySettings>({ max: 1000 })

/**
 * The objects of a table that crossed (`texts` of a {@link SettingsTable}), each parsed once per
 * distinct text on this thread.
 */
export function readSettingsTable(texts: readonly (string | null)[]): (PrivacySettings | null)[] {
  return texts.map((t) => {
    if (t === null) return null
    let s = interned.get(t)
    if (s === undefined) {
      s = JSON.parse(t) as PrivacySettings
      interned.set(t, s)
    }
    return s
  })
}

/** The settings a unit or job refers to by index; a bad index is a codec fault, not data. */
export function settingsAt(
  table: readonly (PrivacySettings | null)[],
  i: unknown,
): PrivacySettings | null {
  if (typeof i !== 'number' || !(i in table)) throw new Error(`privacy settings: no entry ${i}`)
  return table[i] ?? null
}
