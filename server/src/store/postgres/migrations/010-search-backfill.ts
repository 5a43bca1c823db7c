/**
 * The events the search backfill still has to index, as SQLite's migration 015
 * (docs/search.md): a partial index of the rows without `events.search` (created on every
 * partition of `events`); ingest always writes `search`, so it adds nothing to it.
 */
export const sql = `
CREATE INDEX events_unindexed ON events(id) WHERE search IS NULL;
`
