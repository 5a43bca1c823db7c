import { execFileSync } from 'node:child_process'

/**
 * Compresses with the zstd command-line tool (Debian's `zstd`, installed by `.ci/run`): the
 * tests of the zstd Content-Encoding need a real encoder, and Node 20's zlib has none. Input
 * given on stdin, so the frame declares no content size unless `args` asks for one.
 */
export function zstdCompress(input: Buffer | string, args: string[] = []): Buffer {
  return execFileSync('zstd', ['-q', '-c', ...args], { input, maxBuffer: 64 * 1024 * 1024 })
}
