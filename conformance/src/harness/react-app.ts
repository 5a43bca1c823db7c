/**
 * The React app of the browser React test: a stock @sentry/react with React 19, built by Vite
 * for production with source maps (minified by Vite's own minifier or by esbuild, so two builds
 * have other minified names), a `Sentry.ErrorBoundary` around a component that throws while
 * rendering. Uploaded with sentry-cli and run by `throwInPage` (harness/source-maps-app.ts).
 */
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { build } from 'vite'
import { repoRoot } from './paths.ts'

/** The component that throws: what the resolved frames must show (file `src/Bomb.jsx`). */
const BOMB = `export function Bomb({ armed }) {
  if (armed) {
    throw new Error('Bomb exploded while rendering')
  }
  return <p>idle</p>
}
`

const APP = `import * as Sentry from '@sentry/react'
import { Bomb } from './Bomb.jsx'

export function App({ armed }) {
  return (
    <main>
      <Sentry.ErrorBoundary fallback={<p>Something went wrong</p>}>
        <Bomb armed={armed} />
      </Sentry.ErrorBoundary>
    </main>
  )
}
`

/**
 * Renders the boundary with the throwing component once, then flushes (a second render in the
 * same page would be dropped by the SDK's dedupe integration: the same error twice in a row).
 */
const MAIN = `import * as Sentry from '@sentry/react'
import { flushSync } from 'react-dom'
import { createRoot } from 'react-dom/client'
import { App } from './App.jsx'

const params = new URLSearchParams(window.location.search)
Sentry.init({ dsn: params.get('dsn'), release: 'react-conformance@1.0.0' })
window.__send = async () => {
  // The page's script runs in its head, before there is a body.
  const root = createRoot(document.documentElement.appendChild(document.createElement('div')))
  flushSync(() => root.render(<App armed />))
  return Sentry.flush(10000)
}
`

/** Where the original frames are in the app's sources (1-based lines). */
export const REACT_ORIGINAL = {
  file: 'src/Bomb.jsx',
  thrower: { function: 'Bomb', line: 3 },
  contextLine: "    throw new Error('Bomb exploded while rendering')",
  message: 'Bomb exploded while rendering',
} as const

/**
 * Builds the app into a fresh directory under `artifacts/` (Vite resolves React and the SDK
 * from the repository's node_modules above it) with `minify` as Vite's `build.minify`; returns
 * the output directory, holding `app.min.js` and its map as `uploadWithCli` expects them.
 */
export async function buildReactApp(minify: 'oxc' | 'esbuild'): Promise<string> {
  const parent = join(repoRoot, 'artifacts')
  await mkdir(parent, { recursive: true })
  const dir = await mkdtemp(join(parent, 'react-app-'))
  await mkdir(join(dir, 'src'))
  await writeFile(join(dir, 'src', 'Bomb.jsx'), BOMB)
  await writeFile(join(dir, 'src', 'App.jsx'), APP)
  await writeFile(join(dir, 'src', 'main.jsx'), MAIN)
  const out = join(dir, 'dist')
  await build({
    root: dir,
    configFile: false,
    logLevel: 'silent',
    mode: 'production',
    // Vite picks the JSX runtime's development build by NODE_ENV, which vitest sets to `test`.
    oxc: { jsx: { runtime: 'automatic', development: false } },
    // Library mode keeps `process.env.NODE_ENV`; React picks its production build by it.
    define: { 'process.env.NODE_ENV': '"production"' },
    build: {
      outDir: out,
      minify,
      sourcemap: true,
      lib: {
        entry: join(dir, 'src', 'main.jsx'),
        formats: ['iife'],
        name: 'ReactApp',
        fileName: () => 'app.min.js',
      },
    },
  })
  return out
}
