/**
 * Lets worker threads started from TypeScript sources (tests, `npm run dev`) load `.ts` files:
 * pass it with `--import` next to tsx's own. On Node 20 tsx registers its loader in the main
 * thread only and worker threads do not inherit loader hooks, but they do inherit the process's
 * `--import` flags, so this registers tsx in each worker thread. The built server (`dist/`) starts
 * its workers from the compiled `.js` files and never loads this.
 */
import { isMainThread } from 'node:worker_threads'
import { register } from 'tsx/esm/api'

if (!isMainThread) register()
