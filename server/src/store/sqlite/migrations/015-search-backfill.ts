/**
 * The events the search backfill still has to index (docs/search.md, "Events stored before
 * the search"): those stored before migration 014 have no `events.search`. A partial index
 * holds only them, so the job finds the next batch without reading the indexed events, and
 * ingest, which always writes `search`, adds nothing to it.
 */
export const sql = `
CREATE INDEX events_unindexed ON events(id) WHERE search IS NULL;
`
