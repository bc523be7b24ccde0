import { type ChildProcess, execFileSync, spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startLocalServer } from '../../functions/local/local-server.ts'
import type { AIState } from '../../shared/model/state/ai-state.ts'
import { textOf } from '../support/conversation.ts'
import { shellBlocks } from '../support/shell-blocks.ts'
import { until } from '../support/until.ts'

// The README's five-minute tour, run as a reader runs it: its bash blocks,
// copied as they are (the URL aside), in bash with curl and jq, against
// `npm start`'s server with the offline demo model. Terminal 2 runs the
// first block (open a session, watch it); terminal 3 runs its `export` line
// and then each step. The server ends quiet streams sooner than its 10 s
// default, and the reader pauses past that before approving, as a reader
// who reads the approval first does.

const QUIET_MS = 300
const README_ORIGIN = 'http://127.0.0.1:3000'

const tour = shellBlocks('README.md', 'Five-minute tour')
function step(needle: string): string {
  const block = tour.find((code) => code.includes(needle))
  if (!block) throw new Error(`README.md's tour has no bash block with ${needle}`)
  return block
}
const steps = {
  open: step('> session.json'),
  message: step('close ticket T-42'),
  approve: step('action: "approval"'),
  answer: step('select(.type == "text")'),
  reminder: step('remind me in 10 seconds to stretch'),
  malformed: step(`-d '{"events": ['`),
}
const exportLine = steps.open.split('\n').find((line) => line.startsWith('export S=')) as string

let server: Awaited<ReturnType<typeof startLocalServer>>
const shells: ChildProcess[] = []

beforeAll(async () => {
  for (const tool of ['curl', 'jq']) {
    try {
      execFileSync('bash', ['-c', `command -v ${tool}`], { stdio: 'ignore' })
    } catch {
      throw new Error(`The README's tour uses ${tool}: install it (apt-get install -y ${tool})`)
    }
  }
  server = await startLocalServer({ webRoot: '/nonexistent', stream: { quietMs: QUIET_MS } })
})

afterAll(async () => {
  // Each shell leads its own process group: end curl with it.
  for (const shell of shells) if (shell.exitCode === null) process.kill(-(shell.pid as number))
  await server?.close()
})

/** Starts a block in bash in `dir`, as pasted into a terminal there. */
function terminal(dir: string, code: string) {
  const shell = spawn('bash', ['-c', code.replaceAll(README_ORIGIN, server.url)], {
    cwd: dir,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  shells.push(shell)
  let stdout = ''
  shell.stdout?.on('data', (chunk) => {
    stdout += chunk
  })
  const exited = new Promise<number | null>((resolve) => shell.once('exit', resolve))
  return { stdout: () => stdout, exited, running: () => shell.exitCode === null }
}

/** Runs a step in terminal 3 (the `export` line first) and answers what it printed. */
async function run(dir: string, code: string): Promise<string> {
  const shell = terminal(dir, `${exportLine}\n${code}`)
  expect(await shell.exited).toBe(0)
  return shell.stdout()
}

async function stateOf(dir: string): Promise<AIState> {
  const { sessionId, token } = JSON.parse(readFileSync(join(dir, 'session.json'), 'utf8'))
  const response = await fetch(`${server.url}/api/state?sessionId=${sessionId}`, {
    headers: { authorization: `Bearer ${token}` },
  })
  return ((await response.json()) as { state: AIState }).state
}

const settled = (dir: string, timeoutMs = 15_000) =>
  until(async () => {
    const state = await stateOf(dir)
    return !state.active && state.messages.at(-1)?.role === 'assistant' && state
  }, timeoutMs)

/** Whether a stream shows the answer's turn: a step completed after the tool's result. */
const answered = (stream: string): boolean =>
  stream.includes('"type":"ai.tool.result"') &&
  stream.lastIndexOf('"type":"ai.generation.completed"') > stream.indexOf('"type":"ai.tool.result"')

/** Open, watch, message, wait, approve, read the answer: the tour up to its reminder. */
async function playTour() {
  const dir = mkdtempSync(join(tmpdir(), 'a2-tour-'))
  const watch = terminal(dir, steps.open)
  await until(() => watch.stdout().includes(': head'), 10_000)
  const { sessionId } = JSON.parse(readFileSync(join(dir, 'session.json'), 'utf8'))

  const sent = JSON.parse(await run(dir, steps.message)) as {
    events?: { id: string }[]
    error?: { code: string }
  }
  expect(sent.error).toBeUndefined()
  await until(async () => (await stateOf(dir)).pendingApprovals.length > 0, 10_000)
  // The reader reads the approval before approving: longer than a quiet period.
  await new Promise((resolve) => setTimeout(resolve, QUIET_MS * 3))
  const approved = JSON.parse(await run(dir, steps.approve)) as { error?: unknown }
  expect(approved.error).toBeUndefined()
  await settled(dir)
  const answer = (await run(dir, steps.answer)).trim()
  // The answer reaches a watch that follows a moment after the state has
  // it; one that stopped at the quiet end never gets it (the test says so).
  await until(() => answered(watch.stdout()), 5_000).catch(() => undefined)
  return { dir, sessionId: sessionId as string, sent, answer, watch }
}

describe("README.md's five-minute tour, run as written", () => {
  it('opens a session, closes the ticket on approval, and the watch follows it all: the approval and the answer after a quiet spell', async () => {
    const { sessionId, sent, answer, watch } = await playTour()
    expect(sent.events?.[0]?.id).toContain(sessionId)
    expect(answer).toMatch(/^Done\. The tool answered: .*"closed":true/)
    const seen = watch.stdout()
    // After the pause: the approval, the tool's result, the answer's turn.
    expect(seen).toContain(`"id":"a1-${sessionId}"`)
    expect(answered(seen)).toBe(true)
    expect(seen).not.toContain(': quiet')
    expect(watch.running()).toBe(true)
  }, 60_000)

  it('runs again on the same server: each run has its own event IDs (fixed ones answered 409)', async () => {
    const first = await playTour()
    const second = await playTour()
    expect(second.sessionId).not.toBe(first.sessionId)
    expect(second.sent.events?.[0]?.id).not.toBe(first.sent.events?.[0]?.id)
    expect(second.answer).toMatch(/^Done\. The tool answered:/)
  }, 90_000)

  it('the reminder step sets a timer, and ten seconds later "Reminder: stretch" starts a turn', async () => {
    const { dir, watch } = await playTour()
    const sent = JSON.parse(await run(dir, steps.reminder)) as { error?: unknown }
    expect(sent.error).toBeUndefined()
    const asked = Date.now()
    await until(async () => {
      const { messages } = await stateOf(dir)
      return messages.some((message) => textOf(message) === 'Reminder: stretch')
    }, 20_000)
    expect(Date.now() - asked).toBeGreaterThanOrEqual(9_000)
    const { messages } = await settled(dir)
    expect(messages.map((message) => [message.role, textOf(message)]).slice(-2)).toEqual([
      ['user', 'Reminder: stretch'],
      ['assistant', '⏰ Reminder: stretch'],
    ])
    expect(watch.stdout()).toContain('Reminder: stretch')
  }, 60_000)

  it('the error example answers 400 MALFORMED_JSON', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'a2-tour-'))
    const opened = terminal(dir, steps.open)
    await until(() => existsSync(join(dir, 'session.json')) && opened.stdout().includes(': head'))
    const answer = await run(dir, steps.malformed)
    expect(answer).toMatch(/^HTTP\/1\.1 400/)
    expect(answer).toContain('"code":"MALFORMED_JSON"')
  }, 30_000)
})
