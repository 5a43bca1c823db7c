import { readFile } from 'node:fs/promises'
import { runInNewContext } from 'node:vm'

/** A Sentry frame parsed from a V8 stack line (oldest first, as the SDKs send them). */
export interface V8Frame {
  function: string
  abs_path: string
  filename: string
  lineno: number
  colno: number
  in_app: boolean
}

/**
 * Runs a built IIFE bundle in a fresh V8 context under `url` (as a browser would load it),
 * calls `globalName.run('x')` and returns the thrown error's frames that belong to the bundle,
 * oldest first. V8 is the engine Chromium runs, so the positions are the ones the browser SDK
 * would report for the same file.
 */
export async function framesOfRun(
  file: string,
  url: string,
  globalName: string,
): Promise<V8Frame[]> {
  const code = await readFile(file, 'utf8')
  const sandbox: Record<string, unknown> = {}
  sandbox['globalThis'] = sandbox
  let stack = ''
  runInNewContext(code, sandbox, { filename: url })
  try {
    runInNewContext(`${globalName}.run('x')`, sandbox, {
      filename: 'http://localhost/test-runner.js',
    })
  } catch (err) {
    stack = (err as Error).stack ?? ''
  }
  const frames: V8Frame[] = []
  for (const line of stack.split('\n')) {
    const m = /^\s*at (?:(.*?) \()?(.+?):(\d+):(\d+)\)?$/.exec(line)
    if (m === null || m[2] !== url) continue
    frames.push({
      function: m[1] ?? '?',
      abs_path: url,
      filename: new URL(url, 'file:///').pathname,
      lineno: Number(m[3]),
      colno: Number(m[4]),
      in_app: true,
    })
  }
  return frames.reverse()
}
