import type { IncomingMessage } from 'node:http'
import { Transform, type TransformCallback } from 'node:stream'
import zlib from 'node:zlib'
import { ApiError } from '../errors.ts'
import type { ByteReservation } from './admission.ts'
import { ZstdDecode } from './zstd-decode.ts'

/** Caps applied while a body is read: before and after decompression. */
export interface BodyCaps {
  maxCompressed: number
  maxDecoded: number
  /** Global in-flight budget: every byte received and decoded is held against it. */
  budget?: ByteReservation
  /**
   * Called once with the first line (decoded) before anything past it is read; the body is
   * paused until it settles, and its rejection ends the read. No newline within `cap` decoded
   * bytes fails with `tooLong`. Lets envelope-only credentials be checked before the body is read.
   */
  firstLine?: { cap: number; check: (line: Buffer) => Promise<void>; tooLong: () => ApiError }
}

type Decoder = 'identity' | 'gzip' | 'deflate' | 'br' | 'zstd'

/** Maps a Content-Encoding header to a decoder; empty and the bogus `UTF-8` mean none (Relay). */
export function decoderFor(header: string | string[] | undefined): Decoder {
  const value = (Array.isArray(header) ? header.join(',') : (header ?? '')).trim().toLowerCase()
  if (value === '' || value === 'identity' || value === 'utf-8') return 'identity'
  if (value === 'gzip' || value === 'x-gzip') return 'gzip'
  if (value === 'deflate') return 'deflate'
  if (value === 'br') return 'br'
  if (value === 'zstd') return 'zstd'
  throw new ApiError(
    'unsupported_encoding',
    `unsupported Content-Encoding "${value}": use gzip, deflate, br, zstd or none`,
  )
}

/** Deflate as sent in practice: zlib-wrapped (RFC 1950) per the spec, raw deflate tolerated. */
class LenientInflate extends Transform {
  private inner: zlib.Inflate | zlib.InflateRaw | undefined
  /** The deflate stream ended before the body did (trailing bytes): zlib already emitted 'end'. */
  private innerEnded = false

  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    if (this.inner === undefined) {
      const b0 = chunk[0] ?? 0
      const zlibWrapped = (b0 & 0x0f) === 8 && (b0 * 256 + (chunk[1] ?? 0)) % 31 === 0
      this.inner = zlibWrapped ? zlib.createInflate() : zlib.createInflateRaw()
      this.inner.on('data', (d: Buffer) => this.push(d))
      this.inner.on('error', (e) => this.destroy(e))
      this.inner.once('end', () => {
        this.innerEnded = true
      })
    }
    this.inner.write(chunk, () => done())
  }

  override _flush(done: TransformCallback): void {
    if (this.inner === undefined || this.innerEnded) {
      done()
      return
    }
    this.inner.once('end', () => done())
    this.inner.end()
  }
}

/**
 * The decoder of one body. `hold` holds bytes against the request's budget (zstd holds the
 * window each frame declares before its decoder allocates it).
 */
function decompressor(decoder: Decoder, hold: (n: number) => boolean): Transform | undefined {
  switch (decoder) {
    case 'identity':
      return undefined
    case 'gzip':
      return zlib.createGunzip()
    case 'deflate':
      return new LenientInflate()
    case 'br':
      return zlib.createBrotliDecompress()
    case 'zstd':
      return new ZstdDecode(hold)
  }
}

/**
 * Reads a request body (chunked or sized) through its Content-Encoding with both caps enforced
 * while streaming, so a decompression bomb is cut off at the cap. Broken compression is a 400,
 * either cap a 413. The request is never destroyed: what is left is drained, so the client
 * still reads the error answer.
 */
export function readBody(req: IncomingMessage, caps: BodyCaps): Promise<Buffer> {
  const declared = Number(req.headers['content-length'])
  if (Number.isFinite(declared) && declared > caps.maxCompressed) {
    req.resume()
    return Promise.reject(
      new ApiError('too_large', `request body exceeds the limit of ${caps.maxCompressed} bytes`),
    )
  }
  const decoder = decoderFor(req.headers['content-encoding'])
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let rawSeen = 0
    let decodedSeen = 0
    let settled = false
    let lineState: 'waiting' | 'checking' | 'done' =
      caps.firstLine === undefined ? 'done' : 'waiting'
    let endedWhileChecking = false
    const fail = (err: ApiError): void => {
      if (settled) return
      settled = true
      req.removeListener('data', onData)
      req.resume()
      inflate?.destroy()
      reject(err)
    }
    const finish = (): void => {
      if (settled) return
      if (lineState === 'waiting') {
        // A body of one line (an envelope header alone): check it whole.
        startCheck(Buffer.concat(chunks, decodedSeen), true)
        return
      }
      if (lineState === 'checking') {
        endedWhileChecking = true
        return
      }
      settled = true
      resolve(Buffer.concat(chunks, decodedSeen))
    }
    const startCheck = (line: Buffer, atEnd: boolean): void => {
      const gate = caps.firstLine
      if (gate === undefined) return
      lineState = 'checking'
      endedWhileChecking = atEnd
      req.pause()
      gate.check(line).then(
        () => {
          lineState = 'done'
          if (endedWhileChecking) finish()
          else req.resume()
        },
        (err: unknown) =>
          fail(
            err instanceof ApiError
              ? err
              : new ApiError('bad_auth', 'could not check the envelope credentials'),
          ),
      )
    }
    const hold = (n: number): boolean => {
      try {
        caps.budget?.add(n)
        return true
      } catch (err) {
        fail(err instanceof ApiError ? err : new ApiError('bad_request', String(err)))
        return false
      }
    }
    const inflate = decompressor(decoder, hold)
    const sink = (chunk: Buffer): void => {
      if (settled) return
      decodedSeen += chunk.length
      if (decodedSeen > caps.maxDecoded) {
        fail(
          new ApiError(
            'too_large',
            `decompressed body exceeds the limit of ${caps.maxDecoded} bytes`,
          ),
        )
        return
      }
      if (!hold(chunk.length)) return
      chunks.push(chunk)
      if (lineState === 'waiting' && caps.firstLine !== undefined) {
        const all = Buffer.concat(chunks, decodedSeen)
        const nl = all.indexOf(10)
        if (nl !== -1 && nl <= caps.firstLine.cap) startCheck(all.subarray(0, nl), false)
        else if (decodedSeen > caps.firstLine.cap) fail(caps.firstLine.tooLong())
      }
    }
    function onData(chunk: Buffer): void {
      if (settled) return
      rawSeen += chunk.length
      // The compressed bytes are held too while they are being decoded (released with the rest).
      if (inflate !== undefined && !hold(chunk.length)) return
      if (rawSeen > caps.maxCompressed) {
        fail(
          new ApiError(
            'too_large',
            `request body exceeds the limit of ${caps.maxCompressed} bytes`,
          ),
        )
        return
      }
      if (inflate === undefined) sink(chunk)
      else inflate.write(chunk)
    }
    if (inflate !== undefined) {
      inflate.on('data', sink)
      inflate.on('error', (err: Error) =>
        fail(new ApiError('bad_compression', `could not decode ${decoder} body`, [err.message])),
      )
      inflate.on('end', finish)
    }
    req.on('data', onData)
    req.on('end', () => {
      if (inflate === undefined) finish()
      else if (!settled) inflate.end()
    })
    req.on('error', () => fail(new ApiError('bad_request', 'request body was cut off')))
  })
}
