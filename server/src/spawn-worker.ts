import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { pathToFileURL } from 'node:url'
import { type ResourceLimits, Worker } from 'node:worker_threads'

/** The ESM entry of tsx's loader API (a dev dependency: only needed when running sources). */
function tsxApi(): string {
  const pkgPath = createRequire(import.meta.url).resolve('tsx/package.json')
  const pkg = JSON.parse(readFileSync(pkgPath, 'utf8')) as {
    exports: Record<string, { import: { default: string } }>
  }
  const target = pkg.exports['./esm/api']?.import.default ?? './dist/esm/api/index.mjs'
  return new URL(target, pathToFileURL(pkgPath)).href
}

/**
 * Starts a worker thread on the module `name` next to the caller (`callerUrl`: its
 * `import.meta.url`): the built `.js` file, or from sources (tests, `npm run dev`) the `.ts`
 * file through tsx, since Node 20 cannot run TypeScript by itself.
 */
export function spawnWorker(
  callerUrl: string,
  name: string,
  workerData: unknown,
  resourceLimits?: ResourceLimits,
): Worker {
  const limits = resourceLimits === undefined ? {} : { resourceLimits }
  if (callerUrl.endsWith('.js'))
    return new Worker(new URL(`./${name}.js`, callerUrl), { workerData, ...limits })
  const entry = new URL(`./${name}.ts`, callerUrl).href
  const boot = `import(${JSON.stringify(tsxApi())}).then((m) => { m.register(); return import(${JSON.stringify(entry)}) })`
  return new Worker(boot, { eval: true, workerData, ...limits })
}
