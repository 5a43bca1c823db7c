/**
 * Retention: indexes that let the sweeper find the oldest rows without scanning a table (events
 * by arrival, single sessions by last update, outcome counters by hour).
 */
export const sql = `
CREATE INDEX events_received ON events(received);
CREATE INDEX health_sessions_updated ON health_sessions(updated);
CREATE INDEX outcomes_hour ON outcomes(hour);
`
