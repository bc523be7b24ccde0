import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parseInspectArgs } from '../../../../functions/cli/inspect/inspect-args.ts'
import { inspectCommand } from '../../../../functions/cli/inspect/inspect-command.ts'
import type { InspectReport } from '../../../../functions/cli/inspect/inspect-report.ts'
import { httpSource } from '../../../../functions/cli/inspect/session-source.ts'
import { startLocalServer } from '../../../../functions/local/local-server.ts'
import { agent } from '../../../../shared/agent/index.ts'
import { inputs } from '../../../../shared/ai.ts'
import type { GatewayDouble } from '../../../../shared/testing/gateway-double.ts'
import { scriptedModel, text } from '../../../../shared/testing/scripted-model.ts'
import { track, until, userMessage } from '../../../support/agent-log.ts'
import { exampleGateway } from '../../../support/example-gateway.ts'

// `a2-aws inspect` against the local server (the example agent on the memory
// store, its model ID through the Gateway double), over its HTTP endpoint,
// as an operator runs it.

let gateway: GatewayDouble
let uninstall: (() => void) | undefined
let server: Awaited<ReturnType<typeof startLocalServer>>
let api: string

/** The local server checks session tokens: a read of a named session carries its own. */
const bearer = async (sessionId: string) => `Bearer ${await server.sessionToken(sessionId)}`

async function run(...given: string[]) {
  const [sessionId = ''] = given
  const argv =
    given.includes('--url') && !given.includes('--header') && !sessionId.startsWith('-')
      ? [...given, '--header', `authorization: ${await bearer(sessionId)}`]
      : given
  const stdout: string[] = []
  const stderr: string[] = []
  const code = await inspectCommand(argv, {
    stdout: (line) => stdout.push(line),
    stderr: (line) => stderr.push(line),
  })
  return { code, stdout, stderr, text: stdout.join('\n') }
}

async function push(sessionId: string, text: string, id: string) {
  const [event] = inputs.message(userMessage(id, text))
  const response = await fetch(`${api}?sessionId=${sessionId}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: await bearer(sessionId) },
    body: JSON.stringify({ events: [event] }),
  })
  expect(response.status).toBe(200)
}

const stateOf = async (sessionId: string) =>
  (await (
    await fetch(`${server.url}/api/state?sessionId=${sessionId}`, {
      headers: { authorization: await bearer(sessionId) },
    })
  ).json()) as {
    state: { active: { phase: string } | null; pendingApprovals: unknown[] }
  }

beforeAll(async () => {
  gateway = await exampleGateway()
  uninstall = gateway.install()
  server = await startLocalServer({
    env: { AI_GATEWAY_API_KEY: 'test-gateway-key', A2_GATEWAY_URL: gateway.url },
    webRoot: '/nonexistent',
  })
  api = `${server.url}/api/agent`
  await push('answered', 'hello there', 'm1')
  await push('approval', 'close ticket T-42', 'm2')
  await until(async () => (await stateOf('answered')).state.active === null, 10_000)
  await until(async () => (await stateOf('approval')).state.pendingApprovals.length > 0, 10_000)
})
afterAll(async () => {
  await server?.close()
  uninstall?.()
  await gateway?.close()
})

describe('a2-aws inspect <sessionId> --url (the local server)', () => {
  it('prints the timeline, one line per event and one per streamed step, then an idle diagnosis', async () => {
    const { code, stdout, text } = await run('answered', '--url', api)
    expect(code).toBe(0)
    expect(stdout[0]).toMatch(
      /^session answered from http:.*: head \d+, last event .*Z \(\d+s ago\)$/,
    )
    expect(text).toMatch(
      / {2}#1 {2}\d\d:\d\d:\d\d\.\d{3} {2}client {2}ai\.control\.requested +message user m1: "hello there"/,
    )
    const progress = stdout.filter((line) => line.includes('ai.generation.progress'))
    expect(progress).toHaveLength(1)
    expect(progress[0]).toMatch(/#\d+(-\d+)? .* a2 .* \d+ batch(es)?, \d+ chunks/)
    expect(text).toContain('ai.message.completed')
    expect(stdout.at(-1)).toBe('status: idle (no active turn)')
  })

  it('says a session waiting on an approval waits on it, naming the tool', async () => {
    const { code, text } = await run('approval', '--url', api)
    expect(code).toBe(0)
    // With the version whose code started the turn: the example agent's derived one.
    expect(text).toMatch(
      /status: waiting \(turn a2\.ai:turn:m2, phase waiting, started on version [0-9a-f]{12}\)/,
    )
    expect(text).toMatch(/waits on approval: an approval of tool closeTicket/)
  })

  it('--json prints the report: timeline, diagnosis, and the state at --at', async () => {
    const { code, stdout } = await run('approval', '--url', api, '--json', '--at', '2')
    expect(code).toBe(0)
    const report = JSON.parse(stdout.join('\n')) as InspectReport
    expect(report.sessionId).toBe('approval')
    expect(report.diagnosis.status).toBe('waiting')
    expect(report.diagnosis.waits[0]).toMatchObject({ kind: 'approval', toolName: 'closeTicket' })
    expect(report.timeline[0]).toMatchObject({ index: 1, type: 'ai.control.requested' })
    expect(report.at?.index).toBe(2)
    expect(report.at?.event?.index).toBe(2)
    expect(report.at?.state.messages).toHaveLength(1)
  })

  it('--at N prints the event at N and the state after it', async () => {
    const { code, text } = await run('answered', '--url', api, '--at', '1')
    expect(code).toBe(0)
    expect(text).toContain('event #1 (m1):')
    expect(text).toContain('state after #1:')
    expect(text).toMatch(/"requests": \{\s+"m1"/)
  })

  it('--diff A..B prints what changed in the state', async () => {
    const { code, stdout } = await run('answered', '--url', api, '--diff', '0..1')
    expect(code).toBe(0)
    expect(stdout).toContain('state #0 -> #1: 1 change')
    expect(stdout.find((line) => line.startsWith('  + requests.m1:'))).toBeDefined()
  })

  it('an index past the head is refused with exit 2 and says the range', async () => {
    const { code, stderr } = await run('answered', '--url', api, '--at', '9999')
    expect(code).toBe(2)
    expect(stderr.join('\n')).toMatch(
      /No state at index 9999: the log runs from 0 \(before any event\) to \d+/,
    )
  })

  it('a session with no events exits 1, also when an index is asked for', async () => {
    for (const argv of [
      ['nobody', '--url', api],
      ['nobody', '--url', api, '--at', '3'],
    ]) {
      const { code, stderr } = await run(...argv)
      expect(code).toBe(1)
      expect(stderr.join('\n')).toContain('session nobody has no events')
    }
  })

  it('a source that is not an agent endpoint exits 2 and says so', async () => {
    const { code, stderr } = await run('answered', '--url', `${server.url}/api/nothing`)
    expect(code).toBe(2)
    expect(stderr.join('\n')).toContain('answered 404')
  })
})

describe('the HTTP source behind authorization', () => {
  it('sends --header and reports a refused read (403 FORBIDDEN)', async () => {
    const a = track(agent({ name: 'guarded', model: scriptedModel([text('ok')]).model }))
    await a.session('s').append(...inputs.message(userMessage('m1', 'hi')))
    await a.runtime.idle()
    const guarded = (input: URL | RequestInfo, init?: RequestInit) =>
      a.fetch(new Request(input, init), {
        authorize: ({ request }) => request.headers.get('authorization') === 'Bearer ok',
      })
    const allowed = httpSource(
      'http://a2.test/api/agent',
      [['authorization', 'Bearer ok']],
      guarded as typeof fetch,
    )
    expect((await allowed.events('s')).length).toBeGreaterThan(0)
    const refused = httpSource('http://a2.test/api/agent', [], guarded as typeof fetch)
    await expect(refused.events('s')).rejects.toMatchObject({
      code: 'SOURCE_FAILED',
      message: expect.stringContaining('403 (FORBIDDEN'),
    })
  })
})

describe('inspect arguments', () => {
  it('reads a session, a source and the views', () => {
    expect(
      parseInspectArgs([
        's1',
        '--table',
        'T',
        '--endpoint',
        'http://127.0.0.1:5000',
        '--diff',
        '3..9',
        '--json',
      ]),
    ).toEqual({
      sessionId: 's1',
      table: 'T',
      endpoint: 'http://127.0.0.1:5000',
      diff: { from: 3, to: 9 },
      headers: [],
      json: true,
      help: false,
    })
  })

  it.each([
    [['--url', 'http://x/api'], /Name one session/],
    [['s1'], /--url <agent url> or --table <name>/],
    [['s1', '--url', 'http://x', '--table', 'T'], /--url <agent url> or --table <name>/],
    [['s1', '--url', 'ftp://x'], /must be http\(s\)/],
    [['s1', '--table', 'T', '--at', '1.5'], /--at takes a log index/],
    [['s1', '--table', 'T', '--diff', '3-9'], /--diff takes <a>..<b>/],
    [
      ['s1', '--url', 'http://x', '--region', 'eu-west-1'],
      /--region and --endpoint are for --table/,
    ],
    [['s1', '--url', 'http://x', '--header', 'nocolon'], /--header takes 'name: value'/],
    [['s1', '--table', 'T', '--bogus'], /Unknown option '--bogus'/],
  ])('refuses %j with a USAGE error', (argv, message) => {
    expect(() => parseInspectArgs(argv)).toThrow(
      expect.objectContaining({ code: 'USAGE', message: expect.stringMatching(message) }),
    )
  })
})
