import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { inputs } from '../../shared/ai.ts'
import type { OpenedSession } from '../../shared/http/log-endpoint.ts'
import type { AIState } from '../../shared/model/state/ai-state.ts'
import type { GatewayDouble } from '../../shared/testing/gateway-double.ts'
import { lastUserText } from '../../shared/testing/model-script.ts'
import { textOf } from '../support/conversation.ts'
import {
  afterTool,
  EXAMPLE_LIMITS,
  EXAMPLE_MODEL,
  echo,
  exampleGateway,
} from '../support/example-gateway.ts'
import { type StartedCommand, startNpmStart } from '../support/npm-start.ts'

// `npm start` as a user with an AI Gateway key runs it: the real
// functions/local/local-server.ts in its own process, its model a model ID string,
// pointed at the Gateway double by A2_GATEWAY_URL. Only the demo model ran
// here before, so a second session that hung went unseen.

let gateway: GatewayDouble
let server: StartedCommand | undefined
let url = ''

beforeAll(async () => {
  gateway = await exampleGateway()
  server = await startNpmStart({
    AI_GATEWAY_API_KEY: 'test-gateway-key',
    A2_GATEWAY_URL: gateway.url,
    A2_MODEL: undefined, // the example's default model, as most users run it
  })
  url = server.url
}, 60_000)

afterAll(async () => {
  await server?.stop()
  await gateway?.close()
})

/** Long enough for a turn on a busy machine; a hung session never gets there. */
const poll = { timeout: 10_000, interval: 50 }
const json = { 'content-type': 'application/json' }
const bearer = (session: OpenedSession) => ({ authorization: `Bearer ${session.token}` })

/** A session on the server at `origin` (this file's npm start by default). */
type Session = OpenedSession & { origin: string }

async function openSession(origin = url): Promise<Session> {
  const response = await fetch(`${origin}/api/agent`, { method: 'POST', headers: json, body: '{}' })
  expect(response.status).toBe(201)
  return { ...((await response.json()) as OpenedSession), origin }
}

async function push(session: Session, events: unknown[]): Promise<void> {
  const response = await fetch(`${session.origin}/api/agent?sessionId=${session.sessionId}`, {
    method: 'POST',
    headers: { ...json, ...bearer(session) },
    body: JSON.stringify({ events }),
  })
  expect(response.status).toBe(200)
}

const say = (session: Session, said: string) =>
  push(
    session,
    inputs.message({
      id: crypto.randomUUID(),
      role: 'user',
      parts: [{ type: 'text', text: said }],
    }),
  )

async function stateOf(session: Session): Promise<AIState> {
  const response = await fetch(`${session.origin}/api/state?sessionId=${session.sessionId}`, {
    headers: bearer(session),
  })
  expect(response.status).toBe(200)
  return ((await response.json()) as { state: AIState }).state
}

/** Waits for the turn to end with `expected` as the whole transcript. */
async function expectTranscript(session: Session, expected: unknown[]): Promise<void> {
  await expect
    .poll(async () => {
      const state = await stateOf(session)
      return { texts: state.messages.map(textOf), active: state.active }
    }, poll)
    .toEqual({ texts: expected, active: null })
}

describe('npm start with AI_GATEWAY_API_KEY and A2_GATEWAY_URL: a model ID string through AI Gateway', () => {
  it('says on startup that the model goes through AI Gateway, at that origin', () => {
    expect(server?.stdout()).toContain(
      `model: ${EXAMPLE_MODEL} through AI Gateway at ${gateway.url}\n`,
    )
    expect(server?.stdout()).not.toContain('OFFLINE DEMO MODEL')
  })

  it('answers in a first session and in a second one (it hung there), then a second turn in the first', async () => {
    const first = await openSession()
    await say(first, 'hello from the first session')
    await expectTranscript(first, [
      'hello from the first session',
      echo('hello from the first session'),
    ])

    const second = await openSession()
    await say(second, 'hello from the second session')
    await expectTranscript(second, [
      'hello from the second session',
      echo('hello from the second session'),
    ])

    await say(first, 'and again')
    await expectTranscript(first, [
      'hello from the first session',
      echo('hello from the first session'),
      'and again',
      echo('and again'),
    ])

    // Every answer came from the double, for the example's model, which the
    // double's catalog gave compaction its limits for, in each session.
    const calls = gateway.calls.filter((call) => lastUserText(call).startsWith('hello from'))
    expect(calls.map((call) => call.modelId)).toEqual([EXAMPLE_MODEL, EXAMPLE_MODEL])
    expect(calls.map((call) => call.tools.sort())).toEqual([
      ['closeTicket', 'setReminder'],
      ['closeTicket', 'setReminder'],
    ])
    for (const session of [first, second]) {
      expect((await stateOf(session)).modelMetadata[EXAMPLE_MODEL]).toEqual({
        status: 'resolved',
        ...EXAMPLE_LIMITS,
      })
    }
  }, 40_000)

  it('asks before closing a ticket in two sessions, each tool call named call_0; approved, the tool runs and the model answers', async () => {
    const sessions = [await openSession(), await openSession()]
    for (const [at, session] of sessions.entries()) {
      const ticket = `T-4${at}`
      await say(session, `close ticket ${ticket}`)
      await expect
        .poll(async () => (await stateOf(session)).pendingApprovals, poll)
        .toMatchObject([
          { toolName: 'closeTicket', toolCallId: 'call_0', input: { ticketId: ticket } },
        ])
      const [approval] = (await stateOf(session)).pendingApprovals
      if (!approval) throw new Error('no pending approval')
      await push(session, inputs.approval(approval, { approved: true }))
      await expect
        .poll(async () => {
          const state = await stateOf(session)
          return { active: state.active, texts: state.messages.map(textOf) }
        }, poll)
        .toEqual({
          active: null,
          texts: [
            `close ticket ${ticket}`,
            expect.stringContaining(afterTool(`{"type":"tool-result","toolCallId":"call_0"`)),
          ],
        })
      const answer = textOf((await stateOf(session)).messages[1])
      expect(answer).toContain(`"ticketId":"${ticket}","closed":true`)
    }
  }, 40_000)
})

describe('npm start as the README runs it: no key, no A2_GATEWAY_URL', () => {
  it('says it runs the offline demo model, and answers with it', async ({ onTestFinished }) => {
    const demo = await startNpmStart({
      AI_GATEWAY_API_KEY: undefined,
      A2_GATEWAY_URL: undefined,
      A2_MODEL: undefined,
    })
    onTestFinished(() => demo.stop())
    expect(demo.stdout()).toContain(
      'model: the OFFLINE DEMO MODEL (set AI_GATEWAY_API_KEY for a real one)\n',
    )
    const calls = gateway.calls.length
    const session = await openSession(demo.url)
    await say(session, 'hello')
    await expectTranscript(session, [
      'hello',
      expect.stringContaining('[offline demo model] You said: "hello".'),
    ])
    expect(gateway.calls.length).toBe(calls)
  }, 40_000)
})
