import { describe, expect, it } from 'vitest'
import { serverUrl } from '../../../shared/node/server-url.ts'

describe('serverUrl(): where a server on HOST and PORT answers', () => {
  it('puts an IPv6 address in brackets, so that the URL parses (HOST=::1 printed http://::1:3000)', () => {
    expect(serverUrl('::1', 3000)).toBe('http://[::1]:3000')
    expect(new URL(`${serverUrl('::1', 3000)}/api/agent`).port).toBe('3000')
    expect(serverUrl('127.0.0.1', 0)).toBe('http://127.0.0.1:0')
    expect(serverUrl('localhost', 8080)).toBe('http://localhost:8080')
  })
})
