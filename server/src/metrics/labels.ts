/** Label values are kept to this shape; anything else (client-chosen text) becomes `other`. */
const SAFE = /^[A-Za-z0-9_.:-]{0,64}$/

/**
 * A label value as exported: the value itself when it is short and of a plain shape, else
 * `other`. Client reports name their own reasons and categories; a crafted one must not reach
 * a scraper as arbitrary text.
 */
export function boundedLabel(value: string): string {
  return SAFE.test(value) ? value : 'other'
}

/**
 * Project ids as a label, for at most `cap` projects (the first seen); later ones share
 * `other`, so a deployment with thousands of projects does not give Prometheus thousands of
 * series per counter.
 */
export class LabelCap {
  private readonly seen = new Set<number>()
  private readonly cap: number

  constructor(cap: number) {
    this.cap = cap
  }

  label(projectId: number): string {
    if (this.seen.has(projectId)) return String(projectId)
    if (this.seen.size >= this.cap) return 'other'
    this.seen.add(projectId)
    return String(projectId)
  }
}
