import { Transform, type TransformCallback } from 'node:stream'
import { Decompress } from 'fzstd'

/**
 * `Content-Encoding: zstd` (Relay accepts it; protocol.md §3.1). Node 20's zlib has no zstd, so
 * the frames are decoded by fzstd (pure JavaScript), behind a guard that reads the frame and
 * block headers as the compressed bytes stream past, before the decoder sees them:
 *
 * - a frame's window (or, for a single-segment frame, its content size) above 8 MiB is
 *   refused: fzstd allocates the window a header declares, up to 2 GiB, from a few bytes.
 *   8 MiB is what RFC 8878 asks every decoder to support and what zstd's levels up to 19 use;
 *   SDK bodies are far smaller;
 * - fzstd shifts the whole window once per block, so a stream of tiny blocks in a large window
 *   costs far more time than its size: the bytes shifted may not pass 64 MiB plus 64 × the
 *   bytes decoded (a real stream of 128 KiB blocks in an 8 MiB window shifts 64 × its output);
 * - the window is held against the request's share of the global byte budget (`hold`), so many
 *   small hostile frames cannot add up past it;
 * - a block larger than 128 KiB or the window, a reserved block type, a frame that needs a
 *   dictionary and bytes after the last frame are broken compression.
 *
 * Decoded output is cut at the body cap by the caller (body.ts), block by block (≤ 128 KiB).
 * Concatenated and skippable frames are read as the format defines.
 */
export class ZstdDecode extends Transform {
  private readonly guard: FrameGuard
  private readonly inner: Decompress
  /** Bytes of window shifted by the decoder so far, and bytes it produced. */
  private shifted = 0
  private decoded = 0

  /**
   * @param hold holds bytes against the request's budget; false when it has no room (the caller
   *   has then failed the request)
   */
  constructor(hold: (n: number) => boolean) {
    super()
    // The window is independent of the body's size (the tool declares 2 MiB for any stream
    // from a pipe), so it is bounded on its own; the decoded bytes meet the body cap later.
    this.guard = new FrameGuard(MAX_WINDOW, hold)
    this.inner = new Decompress((chunk) => {
      this.shifted += this.guard.window
      this.decoded += chunk.length
      if (this.shifted > SHIFT_ALLOWANCE + SHIFT_PER_BYTE * this.decoded) {
        throw new Error('zstd stream of too many small blocks for its window')
      }
      if (chunk.length > 0) this.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.length))
    })
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    try {
      this.guard.scan(chunk)
      this.inner.push(chunk, false)
      done()
    } catch (err) {
      done(err instanceof Error ? err : new Error(String(err)))
    }
  }

  override _flush(done: TransformCallback): void {
    try {
      this.guard.end()
      this.inner.push(new Uint8Array(0), true)
      done()
    } catch (err) {
      done(err instanceof Error ? err : new Error(String(err)))
    }
  }
}

/** Largest window a frame may declare (RFC 8878 §3.1.1.1.2: decoders should support 8 MB). */
const MAX_WINDOW = 8 * 1024 * 1024
/** Window bytes the decoder may shift before the output has to pay for them. */
const SHIFT_ALLOWANCE = 64 * 1024 * 1024
/** Window bytes the decoder may shift for each byte it produced. */
const SHIFT_PER_BYTE = 64

const FRAME_MAGIC = 0xfd2fb528
/** Skippable frames: magic 0x184D2A50–0x184D2A5F. */
const SKIPPABLE_MASK = 0xfffffff0
const SKIPPABLE_MAGIC = 0x184d2a50
/** The format's largest block (RFC 8878 §3.1.1.2.3). */
const MAX_BLOCK = 128 * 1024

type State =
  /** Collecting a frame's magic number and header (up to 18 bytes). */
  | { kind: 'header' }
  /** Collecting a block header (3 bytes). */
  | { kind: 'block'; window: number; checksum: boolean }
  /** Passing `left` bytes of a block, a checksum or a skippable frame. */
  | { kind: 'skip'; left: number; next: 'block' | 'header'; window: number; checksum: boolean }

/**
 * Walks the structure of a zstd stream (RFC 8878) without decoding it: enough to check every
 * frame header before the decoder allocates for it.
 */
class FrameGuard {
  private state: State = { kind: 'header' }
  /** The window of the frame being read (0 before the first). */
  window = 0
  /** Bytes of the header being collected. */
  private pending: number[] = []
  private readonly maxWindow: number
  private readonly hold: (n: number) => boolean

  constructor(maxWindow: number, hold: (n: number) => boolean) {
    this.maxWindow = maxWindow
    this.hold = hold
  }

  scan(chunk: Buffer): void {
    let i = 0
    while (i < chunk.length) {
      const s = this.state
      if (s.kind === 'skip') {
        const n = Math.min(s.left, chunk.length - i)
        s.left -= n
        i += n
        if (s.left === 0) this.afterSkip(s)
        continue
      }
      this.pending.push(chunk[i] ?? 0)
      i++
      if (s.kind === 'header') this.headerByte()
      else if (this.pending.length === 3) this.blockHeader(s)
    }
  }

  /** The stream may end only between frames. */
  end(): void {
    if (this.state.kind !== 'header' || this.pending.length > 0) {
      throw new Error('zstd stream ends inside a frame')
    }
  }

  private afterSkip(s: Extract<State, { kind: 'skip' }>): void {
    this.state =
      s.next === 'header'
        ? { kind: 'header' }
        : { kind: 'block', window: s.window, checksum: s.checksum }
  }

  /** One more byte of a frame header: acts once the header is complete. */
  private headerByte(): void {
    const p = this.pending
    if (p.length < 4) return
    const magic =
      ((p[0] ?? 0) | ((p[1] ?? 0) << 8) | ((p[2] ?? 0) << 16) | ((p[3] ?? 0) << 24)) >>> 0
    if ((magic & SKIPPABLE_MASK) >>> 0 === SKIPPABLE_MAGIC) {
      if (p.length < 8) return
      const size =
        ((p[4] ?? 0) | ((p[5] ?? 0) << 8) | ((p[6] ?? 0) << 16) | ((p[7] ?? 0) << 24)) >>> 0
      this.pending = []
      if (size > 0)
        this.state = { kind: 'skip', left: size, next: 'header', window: 0, checksum: false }
      return
    }
    if (magic !== FRAME_MAGIC) throw new Error('not a zstd frame')
    if (p.length < 5) return
    const fhd = p[4] ?? 0
    const singleSegment = (fhd >> 5) & 1
    const checksum = ((fhd >> 2) & 1) === 1
    const dictFlag = fhd & 3
    const fcsFlag = fhd >> 6
    if (fhd & 8) throw new Error('zstd frame header has its reserved bit set')
    if (dictFlag !== 0) throw new Error('zstd frames that need a dictionary are not supported')
    const fcsBytes = fcsFlag === 0 ? singleSegment : 1 << fcsFlag
    const size = 5 + (singleSegment ? 0 : 1) + fcsBytes
    if (p.length < size) return
    let window: number
    let content = 0
    for (let k = 0; k < fcsBytes; k++) content += (p[size - fcsBytes + k] ?? 0) * 2 ** (8 * k)
    if (fcsBytes === 2) content += 256
    if (singleSegment) {
      window = content
    } else {
      const wd = p[5] ?? 0
      const base = 2 ** (10 + (wd >> 3))
      window = base + (base / 8) * (wd & 7)
    }
    if (window > this.maxWindow) {
      throw new Error(
        `zstd frame declares a window of ${window} bytes, more than the ${this.maxWindow} allowed`,
      )
    }
    // fzstd allocates the window (a single-segment frame: its content size) for the frame.
    if (!this.hold(window)) throw new Error('no room for the zstd window')
    this.window = window
    this.pending = []
    this.state = { kind: 'block', window, checksum }
  }

  private blockHeader(s: Extract<State, { kind: 'block' }>): void {
    const p = this.pending
    const h = (p[0] ?? 0) | ((p[1] ?? 0) << 8) | ((p[2] ?? 0) << 16)
    this.pending = []
    const last = (h & 1) === 1
    const type = (h >> 1) & 3
    const size = h >>> 3
    if (type === 3) throw new Error('zstd block of the reserved type')
    if (size > Math.min(MAX_BLOCK, Math.max(s.window, 1))) {
      throw new Error('zstd block larger than its frame allows')
    }
    const body = type === 1 ? 1 : size
    const next = last ? 'header' : 'block'
    const trailer = last && s.checksum ? 4 : 0
    // An empty last block without a checksum ends the frame at once; an empty one before it
    // leaves the next block header to come.
    if (body + trailer === 0) {
      if (last) this.state = { kind: 'header' }
      return
    }
    this.state = {
      kind: 'skip',
      left: body + trailer,
      next,
      window: s.window,
      checksum: s.checksum,
    }
  }
}
