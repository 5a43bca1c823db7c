import { connect, type Socket } from 'node:net'

/** A response read off a raw socket. */
export interface RawResponse {
  status: number
  headers: Record<string, string>
  body: string
}

/** Resolves with the first complete HTTP response on `socket` (Content-Length framed). */
export function readResponse(socket: Socket): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    let buf = Buffer.alloc(0)
    const onData = (d: Buffer): void => {
      buf = Buffer.concat([buf, d])
      const end = buf.indexOf('\r\n\r\n')
      if (end === -1) return
      const lines = buf.subarray(0, end).toString('latin1').split('\r\n')
      const headers: Record<string, string> = {}
      for (const l of lines.slice(1)) {
        const i = l.indexOf(':')
        headers[l.slice(0, i).trim().toLowerCase()] = l.slice(i + 1).trim()
      }
      const len = Number(headers['content-length'] ?? 0)
      if (buf.length < end + 4 + len) return
      socket.off('data', onData)
      resolve({
        status: Number(lines[0]?.split(' ')[1]),
        headers,
        body: buf.subarray(end + 4, end + 4 + len).toString('utf8'),
      })
    }
    socket.on('data', onData)
    socket.once('error', reject)
    socket.once('close', () => reject(new Error(`socket closed; got ${buf.toString('latin1')}`)))
  })
}

/** Opens a socket to the port and writes `head` (and `body`, when given) without ending it. */
export async function openRaw(port: number, head: string, body?: Buffer | string): Promise<Socket> {
  const socket = connect(port, '127.0.0.1')
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve)
    socket.once('error', reject)
  })
  socket.write(head)
  if (body !== undefined) socket.write(body)
  return socket
}

/** The request head of a POST with the given extra header lines. */
export function postHead(path: string, headers: Record<string, string | number>): string {
  const lines = Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`)
  return `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${lines.join('')}\r\n`
}
