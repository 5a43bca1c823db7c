import zlib from 'node:zlib'
import { ApiError } from '../errors.ts'

/**
 * Decodes a legacy `/store/` body (protocol.md §3.3): plain JSON, or base64 of JSON, or
 * base64 of zlib-compressed JSON (old raven clients, which send no Content-Encoding).
 */
export function decodeStoreBody(body: Buffer, maxDecoded: number): Buffer {
  let start = 0
  while (
    start < body.length &&
    (body[start] === 0x20 || body[start] === 0x0a || body[start] === 0x0d || body[start] === 0x09)
  ) {
    start++
  }
  if (start === body.length) throw new ApiError('empty_body', 'empty request body')
  if (body[start] === 0x7b) return body
  const text = body.toString('latin1').trim()
  if (!/^[A-Za-z0-9+/=_-]+$/.test(text))
    throw new ApiError('invalid_json', 'invalid event payload: not JSON')
  const decoded = Buffer.from(text, 'base64')
  if (decoded[0] === 0x7b) return decoded
  try {
    return zlib.inflateSync(decoded, { maxOutputLength: maxDecoded })
  } catch (err) {
    const tooBig = (err as { code?: unknown }).code === 'ERR_BUFFER_TOO_LARGE'
    if (tooBig)
      throw new ApiError('too_large', `decompressed body exceeds the limit of ${maxDecoded} bytes`)
    throw new ApiError(
      'invalid_json',
      'invalid event payload: not JSON, base64 JSON or base64 zlib JSON',
    )
  }
}
