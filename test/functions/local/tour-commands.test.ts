import { execFile } from 'node:child_process'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startLocalServer } from '../../../functions/local/local-server.ts'
import { formatCommands, tourCommands } from '../../../functions/local/tour-commands.ts'

// The commands `npm start` and `npm run local` print, run in bash with curl
// and jq as a reader pastes them, twice on one server.

const bash = promisify(execFile)
let server: Awaited<ReturnType<typeof startLocalServer>>

beforeAll(async () => {
  server = await startLocalServer({ webRoot: '/nonexistent' })
})
afterAll(async () => {
  await server?.close()
})

const commands = () => {
  const byLabel = new Map(
    tourCommands(`${server.url}/api/agent`, `${server.url}/api/state`).map(
      ({ label, command }) => [label, command] as const,
    ),
  )
  return (label: string) => byLabel.get(label) as string
}

describe("the local servers' banner commands", () => {
  it('open a session and send a message, again and again on one server (a fixed ID answered 409 the second time)', async () => {
    const command = commands()
    for (let run = 1; run <= 2; run++) {
      const dir = mkdtempSync(join(tmpdir(), 'a2-banner-'))
      const { stdout } = await bash(
        'bash',
        ['-c', `${command('open a session')}\n${command('send a message')}`],
        { cwd: dir },
      )
      const answer = JSON.parse(stdout) as { events?: { id: string }[]; error?: unknown }
      expect(answer.error, `run ${run}`).toBeUndefined()
      expect(answer.events?.[0]?.id).toMatch(/^m1-s-/)
    }
  })

  it('stream with &follow: curl does not reconnect after the quiet end', () => {
    expect(commands()('stream it')).toContain('&follow"')
  })

  it('print as a column of labels, each command line under its first', () => {
    expect(
      formatCommands([
        { label: 'a', command: 'one' },
        { label: 'longer', command: 'two |\n  three' },
      ]),
    ).toBe('  a:      one\n  longer: two |\n            three')
  })
})
