import type { CorpusEvent } from './corpus.ts'

/** Training choices; the defaults are the ones the committed dictionary was built with. */
export interface TrainOptions {
  /** Dictionary size in bytes. */
  size: number
  /** Segment length: the unit the dictionary is assembled from. */
  segment?: number
  /** Substring length whose document frequency scores a segment. */
  dmer?: number
  /** A substring must occur in at least this many distinct events to be worth anything. */
  minDocs?: number
}

/** One distinct payload per fixture content: the same event sent twice must not count twice. */
export function distinctPayloads(events: readonly CorpusEvent[]): string[] {
  const seen = new Set<string>()
  for (const e of events) {
    const v = JSON.parse(e.payload) as Record<string, unknown>
    delete v['event_id']
    seen.add(JSON.stringify(v))
  }
  return [...seen]
}

/**
 * Builds a deflate preset dictionary from sample payloads, the way zstd's COVER trainer does:
 * every `dmer`-byte substring is scored by the number of distinct samples it occurs in; the
 * dictionary is assembled greedily from the `segment`-byte windows of the samples whose
 * not-yet-covered substrings score highest, a covered substring scoring nothing afterwards.
 * The best segment goes LAST: deflate codes a near match in fewer bits than a far one, and the
 * end of the dictionary is nearest to the data.
 */
export function trainDictionary(samples: readonly string[], o: TrainOptions): Buffer {
  const segment = o.segment ?? 64
  const dmer = o.dmer ?? 8
  const minDocs = o.minDocs ?? 2
  const docs = samples.map((s) => Buffer.from(s, 'utf8'))
  const df = new Map<string, number>()
  for (const d of docs) {
    const mine = new Set<string>()
    for (let i = 0; i + dmer <= d.length; i++) mine.add(d.toString('latin1', i, i + dmer))
    for (const m of mine) df.set(m, (df.get(m) ?? 0) + 1)
  }
  const score = (m: string): number => {
    const n = df.get(m) ?? 0
    return n >= minDocs ? n : 0
  }
  const chosen: Buffer[] = []
  let used = 0
  while (used < o.size) {
    let best = { score: 0, doc: -1, at: 0 }
    docs.forEach((d, di) => {
      if (d.length < segment) return
      let sum = 0
      for (let i = 0; i + dmer <= segment; i++) sum += score(d.toString('latin1', i, i + dmer))
      if (sum > best.score) best = { score: sum, doc: di, at: 0 }
      for (let s = 1; s + segment <= d.length; s++) {
        sum -= score(d.toString('latin1', s - 1, s - 1 + dmer))
        sum += score(d.toString('latin1', s + segment - dmer, s + segment))
        if (sum > best.score) best = { score: sum, doc: di, at: s }
      }
    })
    if (best.doc < 0) break
    const d = docs[best.doc] as Buffer
    const take = Math.min(segment, o.size - used)
    const piece = d.subarray(best.at, best.at + take)
    chosen.push(piece)
    used += piece.length
    for (let i = 0; i + dmer <= piece.length; i++) df.delete(piece.toString('latin1', i, i + dmer))
  }
  return Buffer.concat(chosen.reverse())
}
