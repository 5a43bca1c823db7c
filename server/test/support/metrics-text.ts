/** One sample of the Prometheus text format: metric name, labels, value. */
export interface Sample {
  name: string
  labels: Record<string, string>
  value: number
}

/** Parses the Prometheus text exposition format (the subset prom-client writes). */
export function parseMetrics(text: string): Sample[] {
  const out: Sample[] = []
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)/.exec(line)
    if (m === null) throw new Error(`not a sample line: ${line}`)
    const labels: Record<string, string> = {}
    for (const l of (m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) {
      labels[l[1] as string] = (l[2] as string).replace(/\\(.)/g, (_, c: string) =>
        c === 'n' ? '\n' : c,
      )
    }
    out.push({ name: m[1] as string, labels, value: Number(m[3]) })
  }
  return out
}

/** Sums the samples of `name` by a key made of their labels (zero-valued ones left out). */
export function sumBy(
  samples: Sample[],
  name: string,
  key: (labels: Record<string, string>) => string,
): Record<string, number> {
  const out: Record<string, number> = {}
  for (const s of samples) {
    if (s.name !== name || s.value === 0) continue
    const k = key(s.labels)
    out[k] = (out[k] ?? 0) + s.value
  }
  return out
}

/** The value of one sample (labels matched exactly as given), or undefined. */
export function sampleValue(
  samples: Sample[],
  name: string,
  labels: Record<string, string> = {},
): number | undefined {
  return samples.find(
    (s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v),
  )?.value
}
