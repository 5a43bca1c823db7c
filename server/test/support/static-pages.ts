import { readFile } from 'node:fs/promises'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'

/** A loopback HTTP server of built browser apps, for the tests that run them in Chromium. */
export interface StaticPages {
  /** `http://127.0.0.1:<port>` */
  url: string
  close(): Promise<void>
}

/**
 * Serves files for headless Chromium: `resolve` maps a request path (without the leading `/`)
 * to a file on disk, or undefined for a 404. HTML and JavaScript only, as the browser tests'
 * bundles need; a file that cannot be read is a 404 too.
 */
export async function serveStaticPages(
  resolve: (path: string) => string | undefined,
): Promise<StaticPages> {
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname.slice(1)
    const file = path.includes('..') ? undefined : resolve(path)
    if (file === undefined) {
      res.writeHead(404).end()
      return
    }
    readFile(file).then(
      (body) =>
        res
          .writeHead(200, {
            'content-type': file.endsWith('.html') ? 'text/html' : 'text/javascript',
          })
          .end(body),
      () => res.writeHead(404).end(),
    )
  })
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((done) => server.close(() => done())),
  }
}
