import { Readable } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { ZstdDecode } from '../src/ingest/zstd-decode.ts'
import { zstdCompress } from './support/zstd-cli.ts'

// The zstd body decoder against real frames from the zstd tool and hand-made hostile ones: a
// frame header of a few bytes must not make the server allocate or shift gigabytes.
async function decode(
  body: Buffer,
  hold: (n: number) => boolean = () => true,
): Promise<{ out: Buffer } | { error: string }> {
  const chunks: Buffer[] = []
  const d = new ZstdDecode(hold)
  d.on('data', (c: Buffer) => chunks.push(c))
  try {
    await new Promise<void>((resolve, reject) => {
      d.on('end', resolve)
      d.on('error', reject)
      // Fed in small pieces: headers and blocks split across chunks.
      Readable.from(
        Array.from({ length: Math.ceil(body.length / 7) }, (_, i) =>
          body.subarray(i * 7, i * 7 + 7),
        ),
      ).pipe(d)
    })
    return { out: Buffer.concat(chunks) }
  } catch (err) {
    return { error: (err as Error).message }
  }
}

/** A frame header without content size: magic, descriptor (checksum flag), window descriptor. */
const header = (windowDescriptor: number, checksum = false) =>
  Buffer.from([0x28, 0xb5, 0x2f, 0xfd, checksum ? 0x04 : 0x00, windowDescriptor])
/** A block header: last flag, type (0 raw, 1 RLE, 2 compressed, 3 reserved), size. */
const block = (last: boolean, type: number, size: number) => {
  const h = (last ? 1 : 0) | (type << 1) | (size << 3)
  return Buffer.from([h & 0xff, (h >> 8) & 0xff, (h >> 16) & 0xff])
}
/** Window descriptor of 2^exp bytes. */
const windowOf = (exp: number) => (exp - 10) << 3

describe('zstd Content-Encoding decoder', () => {
  const text = `{"event_id":"${'a'.repeat(32)}"}\n{"type":"event"}\n${JSON.stringify({ message: 'z'.repeat(5000), n: Array.from({ length: 500 }, (_, i) => i) })}\n`

  it('decodes what the zstd tool writes: levels, content sizes, checksums, several frames', async () => {
    for (const args of [[], ['-19'], ['-1', '--no-check'], ['--long=23']]) {
      expect(await decode(zstdCompress(text, args)), args.join(' ')).toEqual({
        out: Buffer.from(text),
      })
    }
    const two = Buffer.concat([zstdCompress(text.slice(0, 3000)), zstdCompress(text.slice(3000))])
    expect(await decode(two)).toEqual({ out: Buffer.from(text) })
    // A skippable frame between them is skipped.
    const skippable = Buffer.concat([
      Buffer.from([0x50, 0x2a, 0x4d, 0x18, 3, 0, 0, 0]),
      Buffer.from('abc'),
    ])
    const three = Buffer.concat([
      zstdCompress(text.slice(0, 100)),
      skippable,
      zstdCompress(text.slice(100)),
    ])
    expect(await decode(three)).toEqual({ out: Buffer.from(text) })
    // Hand-made raw and RLE blocks with a checksum trailer.
    const hand = Buffer.concat([
      header(windowOf(17), true),
      block(false, 0, 3),
      Buffer.from('abc'),
      block(true, 1, 5),
      Buffer.from('x'),
      Buffer.alloc(4),
    ])
    expect(await decode(hand)).toEqual({ out: Buffer.from('abcxxxxx') })
    expect(await decode(Buffer.alloc(0))).toEqual({ out: Buffer.alloc(0) })
  })

  it('refuses a frame declaring a window over 8 MiB before anything is allocated', async () => {
    const held: number[] = []
    const r = await decode(
      Buffer.concat([header(windowOf(41)), block(true, 1, 1), Buffer.from('A')]),
      (n) => {
        held.push(n)
        return true
      },
    )
    expect(r).toEqual({ error: expect.stringMatching(/window of 2199023255552 bytes/) })
    expect(held).toEqual([])
    // What the tool writes past level 19 (a 128 MiB window) is refused the same way.
    expect(await decode(zstdCompress(text, ['--ultra', '-22']))).toEqual({
      error: expect.stringMatching(/window of 134217728 bytes/),
    })
    // A single-segment frame's window is its content size.
    const single = Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0xe0, 0, 0, 0, 0x40, 0, 0, 0, 0])
    expect(await decode(single)).toEqual({
      error: expect.stringMatching(/window of 1073741824 bytes/),
    })
    // 8 MiB exactly is allowed, and held against the request's budget.
    const ok = await decode(
      Buffer.concat([header(windowOf(23)), block(true, 1, 4), Buffer.from('B')]),
      (n) => {
        held.push(n)
        return true
      },
    )
    expect(ok).toEqual({ out: Buffer.from('BBBB') })
    expect(held).toEqual([8 * 1024 * 1024])
    // No room in the budget: refused.
    expect(
      await decode(
        Buffer.concat([header(windowOf(20)), block(true, 1, 4), Buffer.from('B')]),
        () => false,
      ),
    ).toEqual({
      error: expect.stringMatching(/no room/),
    })
  })

  it('cuts a stream of tiny blocks in a large window', async () => {
    const tiny = Array.from({ length: 50_000 }, () =>
      Buffer.concat([block(false, 1, 1), Buffer.from('A')]),
    )
    const r = await decode(
      Buffer.concat([header(windowOf(23)), ...tiny, block(true, 1, 1), Buffer.from('A')]),
    )
    // The cut refused it (without it, 50,000 shifts of an 8 MiB window would take minutes).
    expect(r).toEqual({ error: expect.stringMatching(/too many small blocks/) })
  })

  it('refuses a Huffman table whose states read no bits instead of looping on it', async () => {
    // A fuzzed frame (ingest fuzz, FUZZ_SEED=1676160822, request 1507): its compressed literals'
    // Huffman weights decode through an FSE table whose two states read 0 bits, which kept
    // fzstd 0.1.1 in an endless loop (patches/fzstd+0.1.1.patch makes it an error).
    const body = Buffer.from(
      'KLUv/QRY9QQAUgofHPCnbQNmMMOVi0+7IIAim0qDBACE5mJGJQUAAb7EQhiYFe9UG1xq0SleLmERMCerFu9gsElyFb6HbJzwep6L4AM24dB7WhmY9aSnPKQq5TqeZ/HKQLkyb7Nx5IaNb9fBAJBHls0vnOoLbMw/krVGLA4oC1TYnNRZPHIrAQtAOhwYPPfYMLVdFOnj9jmG9DW4jwgGaApAq6EOgRJag9G/',
      'base64',
    )
    expect(await decode(body)).toEqual({ error: expect.stringMatching(/invalid zstd data/) })
  })

  it('refuses a block claiming more sequences than it has bits for instead of running them all', async () => {
    // A fuzzed frame (a mutation fuzz of the decoder behind its guard, 26 Nov 2026): 384 bytes
    // whose one compressed block declares 64,256 sequences. Their bits run out after a few, and
    // fzstd 0.1.1 ran the rest on codes no table holds (NaN lengths that copy nothing), for
    // about a second of the main thread, then ended the stream with no output and no error.
    // patches/fzstd+0.1.1.patch makes reading past the block's bits, a code no table holds and
    // a sequence decoding past the block's size errors.
    const body = Buffer.from(
      'KLUv/QRInQsA9lhHIyBPrAODD2Mv/JfcNQVZqh/CBwIEIKF+qkfkI8GQSgiRQMMDPgA7AD8ADsama8eDEpYsOoyX' +
        'GXqYXH2evNdhfBJ6UVt1txVyGNciYY82bROnsinkUJR7tGnLSBJGktzr7NGmLcBtdRHMgRa0BrvX3bv9cHG5bStE' +
        'UQi8vlMyubdtdeF1XRih1ei2Qq6OPQMOsuZe1xbNuLcVcgG588EIhEOAN82ht6MYRXqvOyqpc7tpkj0M97rO3YdU' +
        'SKiS2lYTXl8JVdLbCplsNdm2+tJoyqLAEBgDJWgKU2AQnMHSWFASAmpSU8PrEs7YrhAvRz55m+Grc/dRTJEuz4QA' +
        'E8VkqzuFj1EHp/fZMR0mvUGhR8S9rtBD3rZtnQ5/btsa/wB8FLi1AAAM86zDVSONS2MlVMG9wy18BbFb7DoY4gBF' +
        '/BZwGXMvhcU0DlgA2gNmhaGLo7iFgVe28WEETC1iOi2LZYy+uTFUcV3T6ogCNDiiKTQ6ebqE',
      'base64',
    )
    expect(body.length).toBe(384)
    expect(await decode(body)).toEqual({ error: expect.stringMatching(/invalid zstd data/) })
  })

  it('refuses broken streams: not zstd, truncated, trailing bytes, reserved types and bits, dictionaries, oversized blocks', async () => {
    const good = zstdCompress(text)
    const cases: [string, Buffer, RegExp][] = [
      ['not zstd', Buffer.from('plain text body'), /not a zstd frame/],
      ['truncated', good.subarray(0, good.length - 3), /ends inside a frame/],
      [
        'trailing bytes',
        Buffer.concat([good, Buffer.from('xyz')]),
        /ends inside a frame|not a zstd frame/,
      ],
      [
        'reserved block type',
        Buffer.concat([header(windowOf(17)), block(true, 3, 1), Buffer.from('A')]),
        /reserved type/,
      ],
      ['reserved header bit', Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0x08, 0x40]), /reserved bit/],
      ['dictionary', Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0x01, 0x40, 7]), /dictionary/],
      [
        'block over 128 KiB',
        Buffer.concat([header(windowOf(23)), block(true, 1, 200_000), Buffer.from('A')]),
        /larger than its frame/,
      ],
      [
        'block over the window',
        Buffer.concat([header(windowOf(10)), block(true, 1, 2000), Buffer.from('A')]),
        /larger than its frame/,
      ],
    ]
    for (const [what, body, message] of cases) {
      expect(await decode(body), what).toEqual({ error: expect.stringMatching(message) })
    }
  })
})
