import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import {
  type LocalPipeline,
  startLocalPipeline,
} from '../../../../functions/local/runner/local-pipeline.ts'
import { createLocalResources } from '../../../../functions/local/runner/resources.ts'
import type { Agent } from '../../../../shared/agent/index.ts'
import { inputs } from '../../../../shared/ai.ts'
import { environmentVariables } from '../../../../shared/aws/agent-environment.ts'
import type { GatewayDouble } from '../../../../shared/testing/gateway-double.ts'
import { lastUserText } from '../../../../shared/testing/model-script.ts'
import { awsClientConfig, awsEndpoint, resetMotoForSuite } from '../../../support/aws.ts'
import { textOf } from '../../../support/conversation.ts'
import {
  afterTool,
  EXAMPLE_MODEL,
  echo,
  exampleGateway,
  SUMMARY,
  THINKING,
  THOUGHT_OUT,
} from '../../../support/example-gateway.ts'
import { pipelineClients, silent } from '../../../support/pipeline.ts'
import { queueHops } from '../../../support/queue-hops.ts'
import { until } from '../../../support/until.ts'

// `npm run local` as a user with an AI Gateway key runs it: the example agent
// module (functions/example-agent.ts), loaded as functions/local/local-aws-server.ts
// loads it, from the environment, with AI_GATEWAY_API_KEY and A2_GATEWAY_URL
// pointing its model ID string at the Gateway double; compaction on, as by
// default; the Lambda handlers on moto through the local runner.

/**
 * The catalog's context window: a short conversation fits under its
 * threshold (75%: 3,000 tokens), a message of 16,000 characters does not.
 */
const CONTEXT_WINDOW = 4_000

let gateway: GatewayDouble
let pipeline: LocalPipeline | undefined
/** Each queue function's invocation, in order, with the sessions its records wake. */
const hops = queueHops()
let example: Agent
const providerBefore = globalThis.AI_SDK_DEFAULT_PROVIDER

beforeAll(async () => {
  await resetMotoForSuite()
  gateway = await exampleGateway({ contextWindow: CONTEXT_WINDOW, maxOutputTokens: 1_000 })
  const clients = pipelineClients()
  const prefix = `a2-gw-${Date.now().toString(36)}`
  const { environment, queues } = await createLocalResources(clients, { prefix })
  const endpoint = awsEndpoint()
  if (endpoint !== 'aws') {
    environment.endpoint = endpoint
    const { region, credentials } = awsClientConfig()
    vi.stubEnv('AWS_REGION', region)
    vi.stubEnv('AWS_ACCESS_KEY_ID', credentials?.accessKeyId)
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', credentials?.secretAccessKey)
  }
  // What local-aws-server.ts puts in the environment before it loads the module.
  for (const [name, value] of Object.entries(environmentVariables(environment))) {
    vi.stubEnv(name, value)
  }
  vi.stubEnv('AI_GATEWAY_API_KEY', 'test-gateway-key')
  vi.stubEnv('A2_GATEWAY_URL', gateway.url)
  vi.stubEnv('A2_MODEL', undefined)
  const agentModule = (await import('../../../../functions/example-agent.ts')) as Record<
    string,
    unknown
  >
  example = agentModule.default as Agent
  pipeline = await startLocalPipeline({
    agentModule,
    environment,
    queues,
    clients,
    logger: silent,
    // This file is about the model; who may open a session is pipeline-access's.
    auth: { type: 'none' },
    onInvoke: hops.onInvoke,
  })
})

afterAll(async () => {
  await pipeline?.stop()
  globalThis.AI_SDK_DEFAULT_PROVIDER = providerBefore
  vi.unstubAllEnvs()
  await gateway?.close()
})

async function say(sessionId: string, said: string): Promise<void> {
  await push(sessionId, inputs.message(userText(said)))
}

const userText = (said: string) => ({
  id: crypto.randomUUID(),
  role: 'user' as const,
  parts: [{ type: 'text' as const, text: said }],
})

async function push(sessionId: string, events: unknown[]): Promise<void> {
  const response = await fetch(`${pipeline?.url}?sessionId=${sessionId}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ events }),
  })
  expect(response.status).toBe(200)
}

/** Waits for the turn to end with `expected` as the transcript; a hung turn fails showing its state. */
async function expectTranscript(sessionId: string, expected: unknown[]): Promise<void> {
  await expect
    .poll(
      async () => {
        const { state } = await example.session(sessionId).state()
        return {
          texts: state.messages.map(textOf),
          active: state.active,
          deadLetters: state.deadLetters,
        }
      },
      { timeout: 20_000, interval: 100 },
    )
    .toEqual({ texts: expected, active: null, deadLetters: [] })
}

describe('npm run local with a Gateway model ID through the double (A2_GATEWAY_URL)', () => {
  it('answers a first session and then a second one, each looking its model up in the catalog once', async () => {
    expect(example.options.model).toBe(EXAMPLE_MODEL)
    await say('first', 'hello from the first session')
    await expectTranscript('first', [
      'hello from the first session',
      echo('hello from the first session'),
    ])
    await say('second', 'hello from the second session')
    await expectTranscript('second', [
      'hello from the second session',
      echo('hello from the second session'),
    ])

    for (const id of ['first', 'second']) {
      // The lookup runs beside the turn (the metadata lane), so it may end
      // after the answer does.
      const { state } = await until(async () => {
        const current = await example.session(id).state()
        return current.state.modelMetadata[EXAMPLE_MODEL]?.status !== 'pending' && current
      }, 30_000)
      expect(state.modelMetadata[EXAMPLE_MODEL]).toMatchObject({
        status: 'resolved',
        contextWindow: CONTEXT_WINDOW,
      })
    }
    expect(gateway.catalogReads()).toBe(2)
    expect(gateway.calls.map((call) => call.modelId)).toEqual([EXAMPLE_MODEL, EXAMPLE_MODEL])
  }, 60_000)

  it('crosses one queue from a plain message to the model on a warm session: the POST decides it and wakes the model step', async () => {
    await say('hops', 'warm it up')
    await expectTranscript('hops', ['warm it up', echo('warm it up')])
    // Warm: the model looked up (its result wakes admission, beside the
    // turn) and every lane's work for the session done.
    await until(async () => {
      const { state } = await example.session('hops').state()
      return state.modelMetadata[EXAMPLE_MODEL]?.status === 'resolved'
    }, 30_000)
    // Wake-ups sent by the first turn's last writes may still be in flight.
    await new Promise((resolve) => setTimeout(resolve, 500))
    const calls = gateway.calls.length
    const from = hops.mark()
    await say('hops', 'and again')
    // The model's first byte is asked for once its call arrives.
    await until(() => gateway.calls.length > calls, 10_000)
    const path = hops.since(from, 'hops')
    // Not admission, then generation: the decision was in the POST's append.
    expect(path).toEqual(['generation'])
    await expectTranscript('hops', [
      'warm it up',
      echo('warm it up'),
      'and again',
      echo('and again'),
    ])
  })

  it("compacts through the Gateway when a message crosses the catalog's window, and answers", async () => {
    const long = `please read this: ${'lorem ipsum '.repeat(1_350)}`.trim()
    await say('first', long)
    await expectTranscript('first', [
      'hello from the first session',
      echo('hello from the first session'),
      long,
      echo(long),
    ])
    const { state } = await example.session('first').state()
    expect(state.compacted?.summary).toBe(SUMMARY)
    // The summary request went to the double; the answer's prompt carried the summary.
    const asked = gateway.calls.map(lastUserText)
    expect(
      asked.filter((said) => said.startsWith('Summarize the conversation so far')),
    ).toHaveLength(1)
    const last = gateway.calls.at(-1)
    expect(last?.messages.some((message) => message.text.includes(SUMMARY))).toBe(true)
    expect(last?.messages.some((message) => message.text.includes('hello from the first'))).toBe(
      false,
    )
  }, 60_000)

  it('runs an approved closeTicket in two sessions, each call named call_0 by the model, and answers both', async () => {
    const sessions = ['tickets-a', 'tickets-b']
    for (const [at, id] of sessions.entries()) await say(id, `close ticket T-${at}`)
    for (const [at, id] of sessions.entries()) {
      await expect
        .poll(async () => (await example.session(id).state()).state.pendingApprovals, {
          timeout: 20_000,
          interval: 100,
        })
        .toMatchObject([{ toolCallId: 'call_0', input: { ticketId: `T-${at}` } }])
      const [approval] = (await example.session(id).state()).state.pendingApprovals
      if (!approval) throw new Error('no pending approval')
      await example.session(id).append(...inputs.approval(approval, { approved: true }))
    }
    for (const [at, id] of sessions.entries()) {
      await expectTranscript(id, [
        `close ticket T-${at}`,
        expect.stringContaining(`"ticketId":"T-${at}","closed":true`),
      ])
    }
  }, 60_000)

  it('stops a stream the model left hanging, over the lanes, and the next message answers', async () => {
    await say('stop', 'take your time')
    await expect
      .poll(async () => textOf((await example.session('stop').state()).state.messages[1]), {
        timeout: 20_000,
        interval: 100,
      })
      .toBe('Let me think about that')
    const { state, index } = await example.session('stop').state()
    if (!state.active) throw new Error('the turn is not running')
    await example
      .session('stop')
      .append(...inputs.stop({ turnId: state.active.turnId, frontier: index }))
    await say('stop', 'are you there?')
    await expectTranscript('stop', [
      'take your time',
      'Let me think about that',
      'are you there?',
      echo('are you there?'),
    ])
  }, 60_000)

  it('sets a reminder: its timer (an SQS delay on the timer queue, under 15 minutes) brings it back a second later as a user message, and the model answers it', async () => {
    await say('timer', 'remind me in 1 second to stretch')
    await expectTranscript('timer', [
      'remind me in 1 second to stretch',
      expect.stringContaining(afterTool('')),
      'Reminder: stretch',
      echo('Reminder: stretch'),
    ])
    const { state } = await example.session('timer').state()
    expect(textOf(state.messages[1])).toContain('"scheduled":true,"delaySeconds":1')
    expect(gateway.calls.map(lastUserText)).toContain('Reminder: stretch')
    // A second after the tool call it came from, not at once: a timer's delay
    // counts from the event that set it (ai.tool.called), so a retried tool
    // sets the same timer; a busy tools lane may run the tool close to it.
    const response = await fetch(`${pipeline?.url}?sessionId=timer&events`)
    const { events } = (await response.json()) as {
      events: { id: string; type: string; timestamp: number }[]
    }
    const called = events.find((event) => event.type === 'ai.tool.called')
    const arrived = events.find((event) => event.id.startsWith('reminder:'))
    expect((arrived?.timestamp ?? 0) - (called?.timestamp ?? Date.now())).toBeGreaterThanOrEqual(
      950,
    )
  }, 60_000)

  it('steers a turn over the lanes: the answer at the steer finishes, then the steered message is answered once', async () => {
    await say('steer', 'take your time')
    await expect
      .poll(async () => textOf((await example.session('steer').state()).state.messages[1]), {
        timeout: 20_000,
        interval: 100,
      })
      .toBe(THINKING)
    const { state } = await example.session('steer').state()
    const steer = userText('check billing first')
    await push('steer', inputs.steer(steer, { afterStepOf: state.active?.turnId ?? null }))
    // Steering waits for the current response: it is first in the inbox.
    await expect
      .poll(async () => (await example.session('steer').state()).state.inbox.items, {
        timeout: 20_000,
        interval: 100,
      })
      .toMatchObject([{ id: steer.id, afterStepOf: state.active?.turnId }])
    gateway.release()
    await expectTranscript('steer', [
      'take your time',
      `${THINKING}${THOUGHT_OUT}`,
      'check billing first',
      echo('check billing first'),
    ])
    expect(
      gateway.calls.filter((call) => lastUserText(call) === 'check billing first'),
    ).toHaveLength(1)
  }, 60_000)
})
