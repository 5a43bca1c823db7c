/**
 * One increment of an hourly release-health rollup (`health_hours`): project, release,
 * environment, hour, sessions, then the {@link SESSION_CATEGORIES} counts in their order.
 * PostgreSQL carries these in its appended counter deltas (postgres/counter-deltas.ts) instead
 * of upserting the hour's row inside every ingest transaction, where a session storm of one
 * release would queue every transaction on that one row.
 */
export type HealthHourDelta = [
  number,
  string,
  string,
  number,
  number,
  number,
  number,
  number,
  number,
  number,
]

/** The key of a rollup row, in an order that sorts like (project, release, environment, hour). */
const keyOf = (d: HealthHourDelta) => `${d[0]}\0${d[1]}\0${d[2]}\0${d[3]}`

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

/** Orders rollup rows by key: concurrent folds then lock them in one order. */
const byKey = (a: HealthHourDelta, b: HealthHourDelta) =>
  a[0] - b[0] || cmp(a[1], b[1]) || cmp(a[2], b[2]) || a[3] - b[3]

/**
 * Sums rollup increments per row key: one group commit's (the ingest transaction) or several
 * groups' (the fold). Negative parts are kept: a session that moves to a worse category leaves
 * the old one (-1) for the new one (+1).
 */
export class HealthHourSums {
  private readonly rows = new Map<string, HealthHourDelta>()

  /** Adds one increment (or a summed row of an earlier group). */
  add(d: HealthHourDelta): void {
    const k = keyOf(d)
    const had = this.rows.get(k)
    if (had === undefined) {
      this.rows.set(k, [...d])
      return
    }
    for (let i = 4; i < d.length; i++) (had[i] as number) += d[i] as number
  }

  /** How many distinct rollup rows the sums touch. */
  get size(): number {
    return this.rows.size
  }

  /** The summed rows in key order. */
  sorted(): HealthHourDelta[] {
    return [...this.rows.values()].sort(byKey)
  }
}
