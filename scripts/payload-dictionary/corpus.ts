import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { IngestContext } from '../../server/src/ingest/context.ts'
import { parseEnvelope } from '../../server/src/ingest/envelope.ts'
import { digestEvent, parseEventJson } from '../../server/src/ingest/items/event.ts'

/** One fixture event as the store would write it: the normalised payload JSON. */
export interface CorpusEvent {
  /** Fixture file, relative to the repository root. */
  file: string
  payload: string
}

const FIXTURES = new URL('../../fixtures/', import.meta.url).pathname
const ROOT = new URL('../../', import.meta.url).pathname

function envelopeFiles(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const p = join(dir, name)
      if (statSync(p).isDirectory()) return envelopeFiles(p)
      return name.endsWith('.envelope') ? [p] : []
    })
}

/**
 * The normalised payload of every `event` item of every fixture envelope, built by the ingest's
 * own digest step (`digestEvent`), so the dictionary trains on exactly what `events.payload`
 * holds. Envelopes the parser refuses (the `invalid/` cases) are skipped.
 */
export function fixtureEvents(): CorpusEvent[] {
  const out: CorpusEvent[] = []
  for (const path of envelopeFiles(FIXTURES)) {
    let env: ReturnType<typeof parseEnvelope>
    try {
      env = parseEnvelope(readFileSync(path))
    } catch {
      continue
    }
    const ctx = new IngestContext(
      {
        project: { id: 1, slug: 'p', name: 'p', createdAt: 0, teamId: 1 },
        key: {
          id: 1,
          projectId: 1,
          publicKey: 'k',
          label: 'k',
          component: null,
          createdAt: 0,
          revokedAt: null,
        },
      },
      Date.parse('2026-11-24T00:00:00Z'),
      env.header,
    )
    for (const item of env.items) {
      if (item.header.type !== 'event') continue
      try {
        const { row } = digestEvent(parseEventJson(item.payload), ctx)
        // digestEvent serialises; only the digest threads encode (digestPayload).
        if (typeof row.payload === 'string')
          out.push({ file: relative(ROOT, path), payload: row.payload })
      } catch {
        // not an event the ingest would store
      }
    }
  }
  return out
}
