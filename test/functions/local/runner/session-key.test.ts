import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { localSessionKey } from '../../../../functions/local/runner/session-key.ts'
import { sessionCapability } from '../../../../shared/http/session-capability.ts'

// npm run local's session key: made once, kept beside where it runs, the
// same on every later run (test/functions/local/runner/local-pipeline-restart
// runs the runner twice on it).

const folder = () => join(mkdtempSync(join(tmpdir(), 'a2-key-')), '.a2-local')

describe('npm run local keeps its session key in .a2-local/session-key', () => {
  it('makes it on the first run (32 random bytes, its owner only) and reads the same one after', () => {
    const dir = folder()
    const first = localSessionKey(dir)
    expect(first.created).toBe(true)
    expect(first.key.byteLength).toBe(32)
    expect(statSync(first.path).mode & 0o777).toBe(0o600)
    const again = localSessionKey(dir)
    expect(again.created).toBe(false)
    expect(Buffer.from(again.key).equals(Buffer.from(first.key))).toBe(true)
  })

  it("a token signed on one run verifies on the next: the restart keeps the page's and curl's tokens", async () => {
    const dir = folder()
    const { token } = await sessionCapability({ key: localSessionKey(dir).key }).mint('s1')
    const later = sessionCapability({ key: localSessionKey(dir).key })
    const request = new Request('http://local/api/agent?sessionId=s1', {
      headers: { authorization: `Bearer ${token}` },
    })
    await expect(later.verify(request, 's1')).resolves.toBeUndefined()
  })

  it('refuses a file that holds no key, saying to delete it, instead of signing with it', () => {
    const dir = folder()
    const { path } = localSessionKey(dir)
    writeFileSync(path, 'short\n')
    expect(() => localSessionKey(dir)).toThrow(
      `${path} holds no session key (64 hex characters): delete it, and the next run makes a new one`,
    )
    expect(readFileSync(path, 'utf8')).toBe('short\n')
  })
})
