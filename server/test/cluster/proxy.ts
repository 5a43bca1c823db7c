import { connect, createServer, type Server, type Socket } from 'node:net'

/** A running round-robin proxy. */
export interface RoundRobinProxy {
  port: number
  /** Connections handed to each backend so far, by index. */
  connections: number[]
  close(): Promise<void>
}

/**
 * A TCP round-robin load balancer for tests, as small as it can be: each client connection
 * goes to the next backend; a backend that refuses the connection (a killed node) is skipped
 * for the next one, as a balancer's passive health check would. Connections are kept whole,
 * so HTTP keep-alive stays on one node, as behind a layer-4 balancer.
 */
export async function startProxy(backends: readonly number[]): Promise<RoundRobinProxy> {
  let next = 0
  const sockets = new Set<Socket>()
  const connections = backends.map(() => 0)
  const track = (s: Socket) => {
    sockets.add(s)
    s.on('close', () => sockets.delete(s))
  }
  const server: Server = createServer((client) => {
    track(client)
    client.pause()
    const attempt = (tries: number): void => {
      if (tries >= backends.length) {
        client.destroy()
        return
      }
      const index = next++ % backends.length
      const upstream = connect(backends[index] as number, '127.0.0.1')
      upstream.once('error', () => {
        upstream.destroy()
        attempt(tries + 1)
      })
      upstream.once('connect', () => {
        track(upstream)
        connections[index] = (connections[index] ?? 0) + 1
        upstream.removeAllListeners('error')
        upstream.on('error', () => client.destroy())
        client.on('error', () => upstream.destroy())
        upstream.on('close', () => client.destroy())
        client.on('close', () => upstream.destroy())
        client.pipe(upstream)
        upstream.pipe(client)
        client.resume()
      })
    }
    attempt(0)
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()))
  const addr = server.address()
  const port = typeof addr === 'object' && addr !== null ? addr.port : 0
  return {
    port,
    connections,
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy()
        server.close(() => r())
      }),
  }
}
