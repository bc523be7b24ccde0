/**
 * The URL a server listening on `hostname` and `port` answers at. An IPv6
 * address goes in brackets (`HOST=::1` gives `http://[::1]:3000`): without
 * them the URL does not parse.
 *
 * @example
 * serverUrl('::1', 3000) // 'http://[::1]:3000'
 */
export function serverUrl(hostname: string, port: number): string {
  return `http://${hostname.includes(':') ? `[${hostname}]` : hostname}:${port}`
}
