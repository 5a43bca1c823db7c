import { expect } from 'vitest'

/** One Server-Sent Events message. */
export interface SseMessage {
  id: string | undefined
  event: string
  data: string
}

/** An open SSE stream read message by message. */
export interface SseStream {
  /** The next message, or undefined when none came within `timeoutMs` or the stream ended. */
  next(timeoutMs: number): Promise<SseMessage | undefined>
  /** Resolves true once the server ended the stream (within `timeoutMs`). */
  ended(timeoutMs: number): Promise<boolean>
  close(): void
}

/**
 * Opens `url` as an event stream the way a browser's EventSource does (with `Last-Event-ID`
 * on a resume) and parses its messages; comment lines (`: ping`) are skipped.
 */
export async function openSse(
  url: string,
  headers: Record<string, string> = {},
): Promise<SseStream> {
  const ac = new AbortController()
  const res = await fetch(url, {
    headers: { accept: 'text/event-stream', ...headers },
    signal: ac.signal,
  })
  expect(res.status).toBe(200)
  expect(res.headers.get('content-type')).toContain('text/event-stream')
  const reader = (res.body as ReadableStream<Uint8Array>).getReader()
  const decoder = new TextDecoder()
  let buffer = ''
  let done = false
  let reading: ReturnType<typeof reader.read> | undefined
  const read = async (left: number): Promise<boolean> => {
    reading ??= reader.read()
    const chunk = await Promise.race([
      reading,
      new Promise<undefined>((r) => setTimeout(() => r(undefined), left)),
    ])
    if (chunk === undefined) return false
    reading = undefined
    if (chunk.done) {
      done = true
      return false
    }
    buffer += decoder.decode(chunk.value, { stream: true })
    return true
  }
  const next = async (timeoutMs: number): Promise<SseMessage | undefined> => {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      const end = buffer.indexOf('\n\n')
      if (end !== -1) {
        const block = buffer.slice(0, end)
        buffer = buffer.slice(end + 2)
        const event = /^event: (.*)$/m.exec(block)?.[1]
        const data = /^data: (.*)$/m.exec(block)?.[1]
        const id = /^id: (.*)$/m.exec(block)?.[1]
        if (event !== undefined && data !== undefined) return { id, event, data }
        continue
      }
      const left = deadline - Date.now()
      if (left <= 0 || done) return undefined
      await read(left)
    }
  }
  const ended = async (timeoutMs: number): Promise<boolean> => {
    const deadline = Date.now() + timeoutMs
    while (!done) {
      const left = deadline - Date.now()
      if (left <= 0) return false
      await read(left)
    }
    return true
  }
  return {
    next,
    ended,
    close: () => {
      try {
        ac.abort()
      } catch {
        // already closed
      }
    },
  }
}
