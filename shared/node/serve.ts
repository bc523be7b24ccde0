import { type ServerType, serve } from '@hono/node-server'

export interface LocalServer {
  url: string
  close(): Promise<void>
}

/**
 * Serves a fetch handler on Node's HTTP server (through @hono/node-server,
 * which maps client disconnects to `request.signal`, so SSE streams end).
 */
export function serveFetch(
  fetch: (request: Request) => Promise<Response>,
  { port = 0, hostname = '127.0.0.1' }: { port?: number; hostname?: string } = {},
): Promise<LocalServer> {
  return new Promise((resolve, reject) => {
    let server: ServerType | undefined
    try {
      server = serve({ fetch, port, hostname }, (info) => {
        resolve({
          url: `http://${hostname}:${info.port}`,
          close: () =>
            new Promise((done) => {
              // Open SSE streams would keep close() waiting forever.
              if (server && 'closeAllConnections' in server) server.closeAllConnections()
              server?.close(() => done())
            }),
        })
      })
      server.once('error', reject)
    } catch (error) {
      reject(error)
    }
  })
}
