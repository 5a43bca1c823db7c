/**
 * How a group commit's units travel to the SQLite writer thread: one ArrayBuffer per group,
 * transferred (moved, not copied) with `postMessage`. Structured-cloning the row objects cost
 * the main thread — the ingest bottleneck — about 7 % of its time under `npm run bench`
 * (V8 CPU profile: `postMessage`); this encoding writes the large part, each event's payload
 * string, as raw UTF-8 bytes, and only the small row fields go through `JSON.stringify`.
 *
 * Layout (length-prefixed.ts): the units as the meta with every event payload emptied, then each
 * event's payload in unit order as a part.
 *
 * A payload already in its stored form (bytes, from the digest threads) is copied as it is and
 * arrives as bytes. A unit's undigested event items (the bytes received) follow its events'
 * payloads as parts of their own.
 *
 * Units are plain JSON data (store/types.ts: strings, finite numbers, booleans, null, arrays and
 * objects), so JSON keeps them as they are. Payloads come from `JSON.stringify`, which never
 * emits a lone surrogate (it escapes them), so the UTF-8 round trip is exact.
 */
import { pack, unpack } from '../../length-prefixed.ts'
import { readSettingsTable, SettingsTable, settingsAt } from '../../privacy/settings-wire.ts'
import type { WriteUnit } from '../types.ts'

/** The meta: the units without payloads, and the distinct privacy settings they refer to. */
interface UnitsMeta {
  units: WriteUnit[]
  privacy: (string | null)[]
}

/** Encodes a group's units into one transferable ArrayBuffer (see the module comment). */
export function encodeUnits(units: readonly WriteUnit[]): ArrayBuffer {
  const payloads: (string | Uint8Array)[] = []
  // Each distinct settings object once per group; a unit carries its index (settings-wire.ts).
  const privacy = new SettingsTable()
  const stripped = units.map((u) => {
    const events = u.events.map((e) => {
      payloads.push(e.payload)
      // The stripped payload says which form follows: '' text, 'b' stored bytes.
      return { ...e, payload: typeof e.payload === 'string' ? '' : 'b' }
    })
    const todo = u.undigested
    if (todo === undefined) return { ...u, events }
    const items = todo.items.map(({ payload, ...rest }) => {
      // The bytes follow as a part.
      payloads.push(payload)
      return rest
    })
    return { ...u, events, undigested: { ...todo, items, privacy: privacy.ref(todo.privacy) } }
  })
  const meta = { units: stripped, privacy: privacy.texts }
  return pack(meta, payloads)
}

/** Decodes what `encodeUnits` wrote, restoring every event's payload. */
export function decodeUnits(ab: ArrayBuffer): WriteUnit[] {
  const { meta, parts } = unpack<UnitsMeta>(ab)
  const { units } = meta
  const privacy = readSettingsTable(meta.privacy)
  let n = 0
  for (const u of units) {
    for (const e of u.events) {
      const part = parts[n++]
      if (part === undefined) throw new Error('encoded units: an event without its payload')
      e.payload = e.payload === 'b' ? part : part.toString('utf8')
    }
    const todo = u.undigested
    if (todo !== undefined) {
      const settings = settingsAt(privacy, todo.privacy)
      if (settings === null) delete todo.privacy
      else todo.privacy = settings
    }
    for (const i of todo?.items ?? []) {
      const part = parts[n++]
      if (part === undefined)
        throw new Error('encoded units: an undigested event without its bytes')
      i.payload = part
    }
  }
  if (n !== parts.length) throw new Error(`encoded units: ${parts.length - n} payloads left over`)
  return units
}
