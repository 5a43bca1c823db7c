let reading: Promise<unknown> = Promise.resolve()

/**
 * Serialises the reading of uploads on this node: an assemble holds a whole bundle (up to
 * 64 MiB) and its files in memory while it is read, a release file up to 64 MiB while it is
 * checked and deflated, so one at a time is the most a node should do beside the request
 * bodies themselves. Shared by the artifact-bundle assemble and the release-file upload.
 */
export function oneAtATime<T>(job: () => Promise<T>): Promise<T> {
  const run = reading.then(job, job)
  reading = run.catch(() => undefined)
  return run
}
