import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'

import { repoRoot as root } from '../support/repo-root.ts'

const read = (file: string): string => readFileSync(join(root, file), 'utf8')

describe("docs/http.md's error table", () => {
  it('lists every code the HTTP edge adds (HttpErrorCode), each with its status as thrown', () => {
    const union = /export type HttpErrorCode =([^;]*?)\n\n/s.exec(read('shared/http/http-error.ts'))
    const codes = [...(union?.[1] ?? '').matchAll(/'([A-Z_]+)'/g)].map((match) => match[1])
    expect(codes.length).toBeGreaterThan(5)
    const table = new Map(
      [...read('docs/http.md').matchAll(/^\| (\d{3}) +\| `([A-Z_]+)`/gm)].map((row) => [
        row[2],
        Number(row[1]),
      ]),
    )
    // Where each is thrown, with its status: `new HttpError(400, 'CODE'`.
    const thrown = new Map<string, number>()
    for (const file of [
      'shared/http/http-error.ts',
      'shared/http/log-endpoint.ts',
      'shared/http/read-body.ts',
      'shared/http/request-protocol.ts',
      'shared/http/session-capability.ts',
      'shared/aws/lambda/http-access.ts',
      'shared/agent/session/push-policy.ts',
    ]) {
      for (const match of read(file).matchAll(/new HttpError\(\s*(\d{3}),\s*'([A-Z_]+)'/g)) {
        thrown.set(match[2] as string, Number(match[1]))
      }
    }
    for (const code of codes) {
      expect(table.get(code as string), code).toBe(thrown.get(code as string))
    }
  })
})
