import { readFile, stat } from 'node:fs/promises'
import { extname, join, resolve, sep } from 'node:path'

const contentTypes: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.map': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
}

/**
 * A tiny static handler for a built single-page app: files under `root` with
 * their content types, and index.html for any other path (the page reads
 * its session from the URL). Paths that resolve outside `root` are refused.
 */
export function staticFiles(root: string): (pathname: string) => Promise<Response> {
  const base = resolve(root)
  return async (pathname) => {
    let decoded: string
    try {
      decoded = decodeURIComponent(pathname)
    } catch {
      return new Response('Bad path', { status: 400 })
    }
    const file = resolve(join(base, decoded))
    if (file !== base && !file.startsWith(base + sep))
      return new Response('Not found', { status: 404 })
    const found = await isFile(file)
    const path = found ? file : join(base, 'index.html')
    try {
      const body = await readFile(path)
      const type = contentTypes[extname(path)] ?? 'application/octet-stream'
      const cache = path.includes(`${sep}assets${sep}`)
        ? 'public, max-age=31536000, immutable'
        : 'no-cache'
      return new Response(body, { headers: { 'content-type': type, 'cache-control': cache } })
    } catch {
      return new Response(`No page is built at ${base} (no index.html there).`, {
        status: 503,
        headers: { 'content-type': 'text/plain; charset=utf-8' },
      })
    }
  }
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile()
  } catch {
    return false
  }
}
