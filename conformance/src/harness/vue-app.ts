/**
 * The Vue app of the browser Vue test: a stock @sentry/vue with Vue 3, single-file components
 * built by `vite build` with `@vitejs/plugin-vue` and source maps, as a user's build runs it (a
 * child process with `NODE_ENV=production`, so the SFCs compile as for production). One
 * component throws from a method on a click, another from its `onMounted` hook. Uploaded with
 * sentry-cli and run by `throwInPage` (harness/source-maps-app.ts).
 */
import { execFile } from 'node:child_process'
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { promisify } from 'node:util'
import { repoRoot } from './paths.ts'

const run = promisify(execFile)

const CART_PANEL = `<script lang="ts">
import { defineComponent } from 'vue'

export default defineComponent({
  name: 'CartPanel',
  props: { owner: String, password: String, items: Number },
  methods: {
    applyCoupon(code: string) {
      if (code.length < 8) {
        throw new RangeError(\`Coupon \${code} is too short\`)
      }
    },
  },
})
</script>

<template>
  <section>
    <p>{{ items }} items</p>
    <button id="coupon" type="button" @click="applyCoupon('SAVE')">Apply coupon</button>
  </section>
</template>
`

const BROKEN_WIDGET = `<script setup lang="ts">
import { onMounted } from 'vue'

function readConfig(raw: string): { size: number } {
  return JSON.parse(raw)
}

onMounted(() => {
  readConfig('{size: 3}')
})
</script>

<template>
  <div>widget</div>
</template>
`

const APP = `<script setup lang="ts">
import { ref } from 'vue'
import BrokenWidget from './BrokenWidget.vue'
import CartPanel from './CartPanel.vue'

const showWidget = ref(false)
defineExpose({ mountWidget: () => { showWidget.value = true } })
</script>

<template>
  <main>
    <CartPanel owner="shop" password="hunter2" :items="3" />
    <BrokenWidget v-if="showWidget" />
  </main>
</template>
`

/** Clicks the method's button, mounts the widget whose hook throws, then flushes. */
const MAIN = `import * as Sentry from '@sentry/vue'
import { createApp, nextTick } from 'vue'
import App from './App.vue'

const params = new URLSearchParams(window.location.search)
window.__send = async () => {
  // The page's script runs in its head, before there is a body.
  const el = document.documentElement.appendChild(document.createElement('div'))
  const app = createApp(App)
  Sentry.init({ app, dsn: params.get('dsn'), release: 'vue-conformance@1.0.0', attachProps: true })
  const root = app.mount(el)
  document.getElementById('coupon').click()
  root.mountWidget()
  await nextTick()
  return Sentry.flush(10000)
}
`

const CONFIG = `import vue from '@vitejs/plugin-vue'
import { defineConfig } from 'vite'

export default defineConfig({
  plugins: [vue()],
  logLevel: 'silent',
  // Library mode keeps \`process.env.NODE_ENV\`; Vue picks its production build by it.
  define: { 'process.env.NODE_ENV': '"production"' },
  build: {
    outDir: 'dist',
    sourcemap: true,
    lib: { entry: 'src/main.ts', formats: ['iife'], name: 'VueApp', fileName: () => 'app.min.js' },
  },
})
`

/** Where the original frames are in the app's sources (1-based lines). */
export const VUE_ORIGINAL = {
  method: {
    file: 'src/CartPanel.vue',
    function: 'applyCoupon',
    line: 10,
    contextLine: `        throw new RangeError(\`Coupon \${code} is too short\`)`,
  },
  hook: {
    file: 'src/BrokenWidget.vue',
    function: 'readConfig',
    line: 5,
    contextLine: '  return JSON.parse(raw)',
  },
} as const

/**
 * Builds the app into a fresh directory under `artifacts/` (Vite, its Vue plugin, Vue and the SDK
 * resolve from the repository's node_modules above it) by running `vite build` there; returns
 * the output directory, holding `app.min.js` and its map as `uploadWithCli` expects them.
 */
export async function buildVueApp(): Promise<string> {
  const parent = join(repoRoot, 'artifacts')
  await mkdir(parent, { recursive: true })
  const dir = await mkdtemp(join(parent, 'vue-app-'))
  await mkdir(join(dir, 'src'))
  await writeFile(join(dir, 'src', 'CartPanel.vue'), CART_PANEL)
  await writeFile(join(dir, 'src', 'BrokenWidget.vue'), BROKEN_WIDGET)
  await writeFile(join(dir, 'src', 'App.vue'), APP)
  await writeFile(join(dir, 'src', 'main.ts'), MAIN)
  await writeFile(join(dir, 'vite.config.mjs'), CONFIG)
  const vite = join(dirname(createRequire(import.meta.url).resolve('vite/package.json')), 'bin')
  await run(process.execPath, [join(vite, 'vite.js'), 'build'], {
    cwd: dir,
    env: { PATH: process.env['PATH'] ?? '', HOME: tmpdir(), NODE_ENV: 'production' },
  })
  return join(dir, 'dist')
}
