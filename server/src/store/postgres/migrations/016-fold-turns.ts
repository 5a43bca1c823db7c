/**
 * When the last periodic counter fold of any node started (counter-deltas.ts `foldTurn`): each
 * node's timer asks for a turn every 200 ms, and a turn is given only when no node's periodic
 * fold started in the last 150 ms, so the cluster folds about once per interval however many
 * nodes run. Without it N nodes folded N times per interval, each over 1/N of the pending
 * rows, and a fold's distinct counter rows per event grew with N (three nodes: +25–45 % fold
 * time per event, docs/postgresql.md). One row, read and stamped with PostgreSQL's clock, so
 * the nodes' clocks do not matter.
 */
export const sql = `
CREATE TABLE fold_turns (id INTEGER PRIMARY KEY CHECK (id = 1), started TIMESTAMPTZ NOT NULL);
INSERT INTO fold_turns (id, started) VALUES (1, '-infinity');
`
