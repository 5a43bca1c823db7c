/**
 * One deflate-raw stream with a preset dictionary, reset between payloads instead of made anew
 * for each. Making a zlib stream allocates its window and hash tables and hashes the dictionary
 * (about half of the 23 µs `deflateRawSync` takes for the bench's 3.7 KB event, by
 * microbenchmark); a reset only clears them. The output is byte for byte what
 * `deflateRawSync` with the same options gives (payload-codec.test.ts checks it).
 *
 * Node has no public API to reset a synchronous one-shot stream: this drives the stream's
 * handle the way Node's own `zlib.deflateRawSync` does (`writeSync` with `Z_FINISH`, the
 * stream's write state, then `reset`), and falls back to `deflateRawSync` for a payload larger
 * than the scratch buffer, or if the handle ever looks different (another Node version).
 */
import { constants, createDeflateRaw, type DeflateRaw, deflateRawSync } from 'node:zlib'

/** The parts of Node's zlib stream this uses (node:zlib internals, checked before each use). */
interface ZlibHandle {
  writeSync(
    flush: number,
    input: Buffer,
    inOff: number,
    inLen: number,
    out: Buffer,
    outOff: number,
    outLen: number,
  ): void
  reset(): void
}
interface StreamInternals {
  _handle?: unknown
  _writeState?: unknown
}

/** Payloads up to this size go through the kept stream; larger ones (rare) the one-shot call. */
const SCRATCH_BYTES = 64 * 1024
/** Room zlib's worst case (stored blocks) needs beyond the input, with margin. */
const bound = (n: number): number => n + (n >>> 10) + 64

/** A reusable deflate-raw compressor; `deflate` returns a fresh buffer: a tag byte, then the data. */
export class ReusableDeflate {
  readonly #options: { level: number; dictionary: Buffer }
  #stream: DeflateRaw | undefined
  #handle: ZlibHandle | undefined
  #state: Uint32Array | undefined
  readonly #scratch = Buffer.allocUnsafe(SCRATCH_BYTES)

  constructor(options: { level: number; dictionary: Buffer }) {
    this.#options = options
  }

  /** Whether the last payload went through the kept stream (false: the one-shot fallback). */
  reused = false

  /** `[tag, ...deflateRaw(input)]`: the tag byte, then the compressed bytes. */
  deflate(input: Buffer, tag: number): Buffer {
    if (bound(input.length) + 1 <= SCRATCH_BYTES && this.#open()) {
      const handle = this.#handle as ZlibHandle
      const state = this.#state as Uint32Array
      try {
        handle.writeSync(
          constants.Z_FINISH,
          input,
          0,
          input.length,
          this.#scratch,
          1,
          SCRATCH_BYTES - 1,
        )
        const availOut = state[0] ?? 0
        const availIn = state[1] ?? 1
        handle.reset()
        if (availIn === 0 && availOut > 0) {
          const used = SCRATCH_BYTES - availOut
          const out = Buffer.allocUnsafe(used)
          this.#scratch.copy(out, 0, 0, used)
          out[0] = tag
          this.reused = true
          return out
        }
      } catch {
        // Below: a new stream next time, this payload the one-shot way.
      }
      this.#close()
    }
    this.reused = false
    const packed = deflateRawSync(input, this.#options)
    const out = Buffer.allocUnsafe(packed.length + 1)
    out[0] = tag
    packed.copy(out, 1)
    return out
  }

  /** Opens the kept stream if needed; false if this Node's zlib stream is not as expected. */
  #open(): boolean {
    if (this.#handle !== undefined) return true
    const stream = createDeflateRaw(this.#options)
    const inner = stream as unknown as StreamInternals
    const handle = inner._handle as Partial<ZlibHandle> | null | undefined
    const state = inner._writeState
    if (
      typeof handle?.writeSync !== 'function' ||
      typeof handle.reset !== 'function' ||
      !(state instanceof Uint32Array) ||
      state.length < 2
    ) {
      stream.destroy()
      return false
    }
    // A zlib error destroys the stream with an 'error' event: without a listener that would be
    // an uncaught exception. The next payload then finds the handle closed and starts anew.
    stream.on('error', () => {
      if (this.#stream === stream) this.#close()
    })
    this.#stream = stream
    this.#handle = handle as ZlibHandle
    this.#state = state
    return true
  }

  #close(): void {
    this.#stream?.destroy()
    this.#stream = undefined
    this.#handle = undefined
    this.#state = undefined
  }
}
