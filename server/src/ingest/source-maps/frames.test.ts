import { describe, expect, it } from 'vitest'
import { installedDependency } from '../../grouping/in-app.ts'
import { servedFile, shownSource, urlCandidates } from './frames.ts'

describe('shownSource', () => {
  it.each([
    ['webpack://shop/./src/app.ts', 'src/app.ts'],
    ['turbopack:///[project]/app/api/boom/route.ts', 'app/api/boom/route.ts'],
    ['turbopack:///app/page.tsx', 'app/page.tsx'],
    ['../../src/cart.js', 'src/cart.js'],
    [
      'turbopack:///[project]/node_modules/%40sentry/core/src/x.ts',
      'node_modules/@sentry/core/src/x.ts',
    ],
    ['bad%escape.js', 'bad%escape.js'],
    // @sentry/webpack-plugin's upload: sentry-cli stripped `webpack://` from the namespace form.
    ['app/./src/util.js', 'src/util.js'],
    ['webpack://app/./src/util.js', 'src/util.js'],
    ['../src/./lib/./x.js', 'src/lib/x.js'],
    ['https://cdn.example/app.js', 'https://cdn.example/app.js'],
  ])('%s is shown as %s', (source, shown) => {
    expect(shownSource(source)).toBe(shown)
  })
})

describe('servedFile', () => {
  it('is true for files served under a URL, false for files on disk and Node internals', () => {
    expect(servedFile('https://shop.example/static/app.min.js')).toBe(true)
    expect(servedFile('app:///dist/index.js')).toBe(true)
    expect(servedFile('/srv/shop/app.mjs')).toBe(false)
    expect(servedFile('file:///srv/shop/app.mjs')).toBe(false)
    expect(servedFile('node:internal/process/task_queues')).toBe(false)
    expect(servedFile('C:\\shop\\app.js')).toBe(false)
  })
})

describe('a mapped frame of an installed package', () => {
  // The mapped frame's file is its source as shown; an installed package's is no app code.
  const installedSource = (source: string) => installedDependency({ filename: shownSource(source) })

  it('is one under node_modules, wherever the path starts', () => {
    // Angular's esbuild maps name their packages with nothing before `node_modules/`.
    expect(installedSource('node_modules/zone.js/fesm2015/zone.js')).toBe(true)
    expect(installedSource('../../node_modules/vue/dist/vue.runtime.esm-bundler.js')).toBe(true)
    expect(installedSource('webpack://shop/./node_modules/react-dom/cjs/x.js')).toBe(true)
    expect(installedSource('C:\\shop\\node_modules\\lib\\x.js')).toBe(true)
    expect(installedSource('src/app/app.component.ts')).toBe(false)
    expect(installedSource('src/my_node_modules/x.ts')).toBe(false)
  })
})

describe('urlCandidates', () => {
  it('tries a URL as sent, without its query, and in the ~/path form', () => {
    expect(urlCandidates('https://shop.example/static/app.js?v=2')).toEqual([
      'https://shop.example/static/app.js?v=2',
      'https://shop.example/static/app.js',
      '~/static/app.js?v=2',
      '~/static/app.js',
    ])
    expect(urlCandidates('app:///dist/index.js')).toEqual([
      'app:///dist/index.js',
      '~/dist/index.js',
    ])
  })

  it('tries a file on disk as ~/path and file:// (what --url-prefix writes), and file:// as its path', () => {
    expect(urlCandidates('/srv/app/server.js')).toEqual([
      '/srv/app/server.js',
      '~/srv/app/server.js',
      'file:///srv/app/server.js',
    ])
    expect(urlCandidates('file:///srv/app/server.js')).toEqual([
      'file:///srv/app/server.js',
      '~/srv/app/server.js',
      '/srv/app/server.js',
    ])
  })
})
