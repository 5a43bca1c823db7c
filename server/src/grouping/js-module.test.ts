import { describe, expect, it } from 'vitest'
import { webJsModule } from './js-module.ts'

describe('webJsModule', () => {
  it.each([
    ['https://shop.example/static/js/app.min.js', 'app'],
    ['https://shop.example/static/js/app.min.js?v=3#top', 'app'],
    ['https://cdn.example/assets/index-4f3a9c1e.js', 'assets/index'],
    ['https://cdn.example/v1.2.3/lib/cart.js', 'lib/cart'],
    ['https://cdn.example/0123456789abcdef0123456789abcdef/app/cart.js', 'app/cart'],
    ['webpack:///./src/Bomb.jsx', 'src/Bomb'],
    ['webpack://wpv2/./src/App.vue?e6f3', 'src/App'],
    [
      'webpack:///node_modules/react-dom/cjs/react-dom.production.js',
      'react-dom/cjs/react-dom.production',
    ],
    ['app:///index.js', 'index'],
    ['https://shop.example/', '<unknown module>'],
    ['https://shop.example', '<unknown module>'],
  ])('%s → %s', (url, module) => {
    expect(webJsModule(url)).toBe(module)
  })

  it('leaves files on disk and other schemes alone', () => {
    expect(webJsModule('/srv/app/pay.js')).toBeUndefined()
    expect(webJsModule('file:///srv/app/pay.js')).toBeUndefined()
    expect(webJsModule('node:internal/process/task_queues')).toBeUndefined()
    expect(webJsModule(undefined)).toBeUndefined()
  })
})
