import { randomBytes } from 'node:crypto'
import { linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { ClearError } from '../../exit-clearly.ts'

/** Where `npm run local` keeps what must outlive a run, beside where it runs (gitignored). */
export const LOCAL_STATE_DIR = '.a2-local'

/** 32 random bytes as hex: the key sessionCapability() signs tokens with. */
const KEY_PATTERN = /^[0-9a-f]{64}$/

/**
 * The key `npm run local` signs session tokens with, kept in
 * `<dir>/session-key` (made on the first run, readable by its owner only).
 *
 * Kept in a file rather than taken from the environment because the run
 * that matters is the one nobody planned for: a developer who kills the
 * runner mid-turn to watch the session recover has not set a variable
 * beforehand, and with a key made per process every token the page or curl
 * holds would be refused after the restart, though the endpoint (an
 * external moto, LocalStack) still holds the sessions. A key on a developer's
 * disk signs tokens for a local emulator only.
 *
 * @example
 * const { key } = localSessionKey(resolve(LOCAL_STATE_DIR))
 */
export function localSessionKey(dir: string): { key: Uint8Array; path: string; created: boolean } {
  const path = join(dir, 'session-key')
  const existing = read(path)
  if (existing) return { key: existing, path, created: false }
  mkdirSync(dir, { recursive: true, mode: 0o700 })
  // Written whole, then linked into place: two runners starting at once
  // both end up with the first one's key, and neither reads half a file.
  const draft = `${path}.${process.pid}`
  writeFileSync(draft, `${randomBytes(32).toString('hex')}\n`, { mode: 0o600 })
  let created = true
  try {
    linkSync(draft, path)
  } catch (error) {
    if ((error as { code?: unknown }).code !== 'EEXIST') throw error
    created = false
  } finally {
    rmSync(draft, { force: true })
  }
  return { key: read(path) as Uint8Array, path, created }
}

function read(path: string): Uint8Array | undefined {
  let text: string
  try {
    text = readFileSync(path, 'utf8').trim()
  } catch (error) {
    if ((error as { code?: unknown }).code === 'ENOENT') return undefined
    throw error
  }
  if (!KEY_PATTERN.test(text)) {
    throw new ClearError(
      `${path} holds no session key (64 hex characters): delete it, and the next run makes a new one (the tokens signed with the old one stop working).`,
    )
  }
  return Buffer.from(text, 'hex')
}
