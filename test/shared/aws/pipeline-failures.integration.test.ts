import { GetQueueAttributesCommand } from '@aws-sdk/client-sqs'
import { tool } from 'ai'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import type { Agent } from '../../../shared/agent/index.ts'
import { inputs } from '../../../shared/ai.ts'
import type { PipelineAgent } from '../../../shared/aws/lambda/pipeline-agent.ts'
import type { EventStore } from '../../../shared/log/event-store.ts'
import type { WakeUp } from '../../../shared/runtime/wake-up.ts'
import {
  type Step,
  scriptedModel,
  text,
  toolCalls,
} from '../../../shared/testing/scripted-model.ts'
import { eventsOf, textOf, until, userMessage } from '../../support/agent-log.ts'
import { type BuildAgent, pipelineForSuite } from '../../support/pipeline.ts'

/**
 * What goes wrong in a session's first Lambda container: it is killed right
 * after an append of `type` commits (`crash`: the process is gone, as when
 * Lambda runs out of memory or the runtime dies; nothing it does afterwards
 * completes and it renews no lease), or every append with `type` fails
 * (`fail`: a poison wake-up, retried until it is dead-lettered).
 */
const FAULTS: Partial<Record<string, { type: string; effect: 'crash' | 'fail' }>> = {
  'crash-stream': { type: 'ai.generation.progress', effect: 'crash' },
  'crash-tool': { type: 'ai.tool.result', effect: 'crash' },
  'crash-completed': { type: 'ai.generation.completed', effect: 'crash' },
  poison: { type: 'ai.generation.started', effect: 'fail' },
}

/**
 * The queue handlers' lease on a scaled clock (deployed: a 30 s lease, a 2 s
 * first retry), on queues with their deployed visibility timeouts (6 minutes
 * for admission, an hour for generation): a turn that recovers within
 * seconds here recovers by the lease, never by the visibility timeout.
 */
const LEASE = {
  seconds: 3,
  renewEverySeconds: 1,
  retry: { baseDelayMs: 1_000, maxDelayMs: 2_000 },
}
/** The dead attempt's claim expires this soon; the redelivered message waits for it. */
const CLAIM_TTL_MS = 1_000
/** A killed invocation's turn is taken over within one lease and one claim TTL, plus the work. */
const RECOVERY_TARGET_MS = LEASE.seconds * 1000 + CLAIM_TTL_MS + 8_000

const ticketCall = toolCalls({
  toolCallId: 'c2',
  toolName: 'closeTicket',
  input: { ticketId: 'T-2' },
})
const scripts: Record<string, Step[]> = {
  'crash-stream': [
    { hang: true, parts: text('Half an ans', { chunks: 2 }).slice(0, 4) },
    text('A complete answer.'),
  ],
  'crash-tool': [
    toolCalls({ toolCallId: 'c1', toolName: 'closeTicket', input: { ticketId: 'T-1' } }),
    text('Closed T-1.'),
  ],
  // The step ends only once the call's result is in (the test releases it),
  // so the crash after the step's end kills no tool mid-run: what is lost is
  // the wake-up of the next step, decided with the step's end.
  'crash-completed': [
    {
      hang: true,
      parts: ticketCall.slice(0, -1),
      afterRelease: ticketCall.slice(-1),
    },
    text('Closed T-2.'),
  ],
  poison: [text('Recovered.')],
}
// Each session's user message names its script.
const script = scriptedModel((options) => {
  const prompt = JSON.stringify(options.prompt)
  const session = Object.keys(scripts).find((name) => prompt.includes(`[${name}]`))
  return session ? scripts[session]?.shift() : undefined
})
const closed: string[] = []
const MAX_RECEIVE_COUNT = 3

const suite = pipelineForSuite(
  {
    name: 'support-agent',
    model: script.model,
    claimTtlMs: CLAIM_TTL_MS,
    tools: {
      closeTicket: tool({
        inputSchema: z.object({ ticketId: z.string() }),
        execute: async ({ ticketId }) => {
          closed.push(ticketId)
          return { closed: true }
        },
      }),
    },
  },
  { maxReceiveCount: MAX_RECEIVE_COUNT, serve: faultyContainers, lease: LEASE },
)

/** When each faulty session's container was killed. */
const killedAt = new Map<string, number>()

/**
 * The runner's functions: a healthy container, and for each faulty session
 * a container of its own that runs the session's work until it dies. A
 * crashing container's invocation is killed in the runner, as Lambda kills
 * a process: its messages are not deleted and its lease is not renewed.
 */
function faultyContainers(build: BuildAgent): PipelineAgent {
  const healthy = build()
  const containers = new Map<string, { agent: Agent; dead: boolean }>()
  const containerFor = (sessionId: string) => {
    const fault = FAULTS[sessionId]
    if (!fault) return undefined
    let container = containers.get(sessionId)
    if (!container) {
      const entry = { agent: undefined as unknown as Agent, dead: false }
      entry.agent = build((store) =>
        faultyStore(store, fault, () => {
          entry.dead = true
          killedAt.set(sessionId, Date.now())
          suite().pipeline.kill((record) => record.body.includes(JSON.stringify(sessionId)))
        }),
      )
      container = entry
      containers.set(sessionId, container)
    }
    return container.dead ? undefined : container
  }
  return {
    ...healthy,
    runtime: {
      ...healthy.runtime,
      run: (wakeUp: WakeUp) =>
        (containerFor(wakeUp.sessionId)?.agent ?? healthy).runtime.run(wakeUp),
    },
  }
}

/** How long a killed session's turn took to finish after the kill. */
async function recoveryMs(sessionId: string): Promise<number> {
  const killed = killedAt.get(sessionId)
  expect(killed, `${sessionId} was killed`).toBeDefined()
  return Date.now() - (killed as number)
}

function faultyStore(
  store: EventStore,
  fault: { type: string; effect: 'crash' | 'fail' },
  onDeath: () => void,
): EventStore {
  let dead = false
  const never = new Promise<never>(() => {})
  const alive =
    <A extends unknown[], R>(call: (...args: A) => Promise<R>) =>
    (...args: A): Promise<R> =>
      dead ? never : call(...args)
  return {
    ...Object.fromEntries(
      Object.entries(store).map(([name, method]) => [
        name,
        alive((method as (...args: unknown[]) => Promise<unknown>).bind(store)),
      ]),
    ),
    tail: store.tail.bind(store),
    append: alive(async (...[sessionId, events, options]: Parameters<EventStore['append']>) => {
      const hit = events.some((event) => event.type === fault.type)
      if (hit && fault.effect === 'fail')
        throw new Error(`poisoned: ${fault.type} cannot be stored`)
      const result = await store.append(sessionId, events, options)
      if (hit) {
        dead = true
        onDeath()
        return never
      }
      return result
    }),
  } as EventStore
}

const post = (sessionId: string, events: unknown[]) =>
  fetch(`${suite().pipeline.url}?sessionId=${sessionId}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ events }),
  })

async function finishedTurn(sessionId: string) {
  return until(async () => {
    const { state } = await suite().agent.session(sessionId).state()
    return state.active === null && state.messages.length === 2 && state
  }, 30_000)
}

async function typesOf(sessionId: string): Promise<string[]> {
  return (await eventsOf(suite().agent, sessionId)).map((event) => event.type)
}

describe('failures in the pipeline on the emulator', () => {
  it('a generation invocation killed mid-stream is resumed by the next delivery within a lease and a claim TTL, not the queue visibility timeout', async () => {
    await post('crash-stream', inputs.message(userMessage('u1', '[crash-stream] hi')))
    const state = await finishedTurn('crash-stream')
    expect(await recoveryMs('crash-stream')).toBeLessThan(RECOVERY_TARGET_MS)
    expect(suite().pipeline.stats.kills.generation).toBeGreaterThanOrEqual(1)
    expect(textOf(state.messages[1])).toBe('A complete answer.')
    const events = await eventsOf(suite().agent, 'crash-stream')
    const started = events.filter((event) => event.type === 'ai.generation.started')
    expect(started.map((event) => (event.payload as { attempt: number }).attempt)).toEqual([1, 2])
    expect(events.filter((event) => event.type === 'ai.generation.superseded')).toHaveLength(1)
    expect(events.filter((event) => event.type === 'ai.message.completed')).toHaveLength(1)
  }, 40_000)

  it('a tool whose result committed just before its container died is not run again', async () => {
    await post('crash-tool', inputs.message(userMessage('u2', '[crash-tool] close T-1')))
    const state = await finishedTurn('crash-tool')
    expect(await recoveryMs('crash-tool')).toBeLessThan(RECOVERY_TARGET_MS)
    expect(textOf(state.messages[1])).toBe('Closed T-1.')
    expect(closed.filter((ticket) => ticket === 'T-1')).toEqual(['T-1'])
    const types = await typesOf('crash-tool')
    expect(types.filter((type) => type === 'ai.tool.result')).toHaveLength(1)
    expect(types.filter((type) => type === 'ai.message.completed')).toHaveLength(1)
  }, 40_000)

  it('a step completed just before its container died (the fast path never sent) still goes on: the stream router wakes the next lane', async () => {
    await post('crash-completed', inputs.message(userMessage('u3', '[crash-completed] close T-2')))
    await until(async () => (await typesOf('crash-completed')).includes('ai.tool.result'), 20_000)
    script.release()
    const state = await finishedTurn('crash-completed')
    expect(await recoveryMs('crash-completed')).toBeLessThan(RECOVERY_TARGET_MS)
    expect(textOf(state.messages[1])).toBe('Closed T-2.')
    expect(closed.filter((ticket) => ticket === 'T-2')).toEqual(['T-2'])
    const types = await typesOf('crash-completed')
    expect(types.filter((type) => type === 'ai.generation.started')).toHaveLength(2)
    expect(types.filter((type) => type === 'ai.message.completed')).toHaveLength(1)
  }, 40_000)

  it('a poison wake-up ends in the dead-letter queue within a few short backoffs, and the session shows the failure', async () => {
    const posted = Date.now()
    await post('poison', inputs.message(userMessage('u4', '[poison] hi')))
    const { state } = await until(async () => {
      const current = await suite().agent.session('poison').state()
      return current.state.deadLetters.length > 0 && current
    }, 60_000)
    // Two retries of at most the lease's longest wait each, then the last
    // receive: seconds, where waiting out the queue's visibility timeout
    // would take an hour. The slack is a loaded machine's moto.
    expect(Date.now() - posted).toBeLessThan(
      (MAX_RECEIVE_COUNT - 1) * LEASE.retry.maxDelayMs + 30_000,
    )
    expect(state.deadLetters).toEqual([
      {
        lane: 'generation',
        requestId: expect.any(String),
        error: 'poisoned: ai.generation.started cannot be stored',
        attempts: MAX_RECEIVE_COUNT,
        index: expect.any(Number),
      },
    ])
    // The user's message is kept; the turn failed with the reason and waits for a retry.
    expect(state.messages.map((message) => message.id)).toEqual(['u4'])
    expect(state.active).toMatchObject({
      phase: 'failed',
      error: `The model step was given up after ${MAX_RECEIVE_COUNT} attempts: poisoned: ai.generation.started cannot be stored`,
    })
    const inDeadLetter = await until(async () => {
      const { Attributes } = await suite().sqs.send(
        new GetQueueAttributesCommand({
          QueueUrl: suite().queues.lanes.generation.deadLetterUrl,
          AttributeNames: ['ApproximateNumberOfMessages'],
        }),
      )
      return Number(Attributes?.ApproximateNumberOfMessages ?? 0) || undefined
    }, 15_000)
    expect(inDeadLetter).toBe(1)

    // Once the cause is gone, the user's retry runs the step again.
    delete FAULTS.poison
    await post(
      'poison',
      inputs.retry({ turnId: state.active?.turnId as string, retryId: 'r-poison' }),
    )
    const recovered = await finishedTurn('poison')
    expect(textOf(recovered.messages[1])).toBe('Recovered.')
  }, 120_000)
})
