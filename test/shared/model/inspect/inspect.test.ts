import { tool } from 'ai'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { agent } from '../../../../shared/agent/index.ts'
import { inputs } from '../../../../shared/ai.ts'
import { claimKeyOfLife } from '../../../../shared/index.ts'
import type { StoredEvent } from '../../../../shared/log/event.ts'
import type { Claim } from '../../../../shared/log/event-store.ts'
import {
  claimKeysToRead,
  diagnose,
  diffAt,
  headOf,
  IndexOutOfRangeError,
  stateAt,
  statesByIndex,
  timeline,
} from '../../../../shared/model/inspect/index.ts'
import { scriptedModel, text, toolCalls } from '../../../../shared/testing/scripted-model.ts'
import { eventsOf, track, until, userMessage } from '../../../support/agent-log.ts'

// Scripted sessions run by a real embedded agent; the inspector reads their
// stored events and claims, as the CLI does.

async function claimsOf(
  a: { runtime: { store: { readClaim(s: string, k: string): Promise<Claim | undefined> } } },
  sessionId: string,
  events: readonly StoredEvent[],
) {
  const { state } = stateAt(events, headOf(events))
  const keys = claimKeysToRead(state)
  // Stored under the log's life (the claims of a life are its own).
  const life = events.at(-1)?.life
  return Object.fromEntries(
    await Promise.all(
      keys.map(async (key) => [
        key,
        await a.runtime.store.readClaim(sessionId, claimKeyOfLife(key, life)),
      ]),
    ),
  )
}

describe('timeline', () => {
  it('lists every event with index, time, type, author and summary, folding progress batches into one line per step', async () => {
    const script = scriptedModel([text('Ticket T-42 is closed now.', { chunks: 5 })], {
      chunkDelayMs: 30,
    })
    const a = track(
      agent({
        name: 'inspect-timeline',
        model: script.model,
        harness: { type: 'ai-sdk', generation: { progress: { windowMs: 10, maxWindowMs: 10 } } },
      }),
    )
    await a.session('s').append(...inputs.message(userMessage('m1', 'close ticket T-42')))
    await a.runtime.idle()
    const events = await eventsOf(a, 's')
    const batches = events.filter((event) => event.type === 'ai.generation.progress')
    expect(batches.length).toBeGreaterThan(1)

    const lines = timeline(events)
    expect(lines).toHaveLength(events.length - batches.length + 1)
    const progress = lines.filter((line) => line.type === 'ai.generation.progress')
    expect(progress).toEqual([
      expect.objectContaining({
        index: batches[0]?.index,
        lastIndex: batches.at(-1)?.index,
        batches: batches.length,
        author: 'a2',
      }),
    ])
    expect(progress[0]?.summary).toContain('"Ticket T-42 is closed now."')
    expect(lines[0]).toMatchObject({
      index: 1,
      type: 'ai.control.requested',
      author: 'client',
      summary: 'message user m1: "close ticket T-42"',
    })
    expect(lines[0]?.time).toBe(events[0]?.timestamp)
    expect(lines.find((line) => line.type === 'ai.message.completed')?.summary).toMatch(/^finished/)
    expect(lines.map((line) => line.index)).toEqual(
      [...lines.map((line) => line.index)].sort((x, y) => x - y),
    )
  })

  it('shows app events as their payload, authored by the app, and cuts long summaries', () => {
    const event = (index: number, payload: unknown): StoredEvent => ({
      id: `e${index}`,
      type: 'ticket.noted',
      payload,
      sessionId: 's',
      life: '',
      index,
      timestamp: 1000 + index,
    })
    const [short, long] = timeline([event(1, { text: 'hi' }), event(2, { text: 'x'.repeat(300) })])
    expect(short).toMatchObject({ author: 'app', summary: '{"text":"hi"}', time: 1001 })
    expect(long?.summary).toHaveLength(100)
    expect(long?.summary.endsWith('…')).toBe(true)
  })
})

describe('state at an index, and the diff between two', () => {
  it('folds the state the agent has at every index, and says what changed between two', async () => {
    const script = scriptedModel([text('Done.')])
    const a = track(agent({ name: 'inspect-state', model: script.model }))
    await a.session('s').append(...inputs.message(userMessage('m1', 'hello')))
    await a.runtime.idle()
    const events = await eventsOf(a, 's')
    const head = headOf(events)
    const { state: merged } = await a.session('s').state()
    expect(stateAt(events, head).state).toEqual(
      expect.objectContaining({ messages: merged.messages, active: merged.active }),
    )
    expect(stateAt(events, 0)).toMatchObject({ index: 0, state: { messages: [], active: null } })

    const requested = events.find((event) => event.type === 'ai.generation.requested')
    if (!requested) throw new Error('no request')
    expect(stateAt(events, requested.index).state.active).toMatchObject({ phase: 'starting' })

    const states = statesByIndex(events)
    expect(states).toHaveLength(head + 1)
    expect(states[requested.index]).toEqual(stateAt(events, requested.index).state)

    const changes = diffAt(events, requested.index, head)
    expect(changes).toContainEqual({
      path: 'active',
      kind: 'changed',
      before: expect.objectContaining({ phase: 'starting' }),
      after: null,
    })
    expect(changes).toContainEqual(expect.objectContaining({ path: 'messages.1', kind: 'added' }))
    expect(diffAt(events, head, head)).toEqual([])
  })

  it('refuses an index outside the log with INDEX_OUT_OF_RANGE', async () => {
    const a = track(agent({ name: 'inspect-range', model: scriptedModel([text('x')]).model }))
    await a.session('s').append(...inputs.message(userMessage('m1', 'hello')))
    await a.runtime.idle()
    const events = await eventsOf(a, 's')
    const head = headOf(events)
    expect(() => stateAt(events, head + 1)).toThrow(IndexOutOfRangeError)
    expect(() => stateAt(events, -1)).toThrow(/from 0 \(before any event\) to \d+/)
    expect(() => diffAt(events, 0, head + 1)).toThrow(
      expect.objectContaining({ code: 'INDEX_OUT_OF_RANGE' }),
    )
  })
})

describe('diagnose: why a session is not moving', () => {
  it('an idle session waits on nothing', async () => {
    const a = track(agent({ name: 'inspect-idle', model: scriptedModel([text('x')]).model }))
    await a.session('s').append(...inputs.message(userMessage('m1', 'hello')))
    await a.runtime.idle()
    const events = await eventsOf(a, 's')
    const { state } = stateAt(events, headOf(events))
    expect(diagnose(state, { now: Date.now() })).toMatchObject({
      status: 'idle',
      phase: null,
      waits: [],
    })
  })

  it('a tool at work: its claim is held until it expires; past that, it has no live worker and is taken over', async () => {
    let release: () => void = () => {}
    const script = scriptedModel([
      toolCalls({ toolCallId: 'c1', toolName: 'lookup', input: {} }),
      text('ok'),
    ])
    const a = track(
      agent({
        name: 'inspect-tool',
        model: script.model,
        claimTtlMs: 60_000,
        tools: {
          lookup: tool({
            inputSchema: z.object({}),
            execute: () => new Promise((resolve) => (release = () => resolve({ ok: true }))),
          }),
        },
      }),
    )
    await a.session('s').append(...inputs.message(userMessage('m1', 'look it up')))
    await until(async () => {
      const events = await eventsOf(a, 's')
      const claims = await claimsOf(a, 's', events)
      return Object.values(claims).some((claim) => claim !== undefined)
    })
    const events = await eventsOf(a, 's')
    const { state } = stateAt(events, headOf(events))
    const claims = await claimsOf(a, 's', events)
    const key = claimKeysToRead(state)[0] ?? ''
    const claim = claims[key] as Claim
    const now = Date.now()

    const working = diagnose(state, { claims, now })
    expect(working).toMatchObject({ status: 'working', phase: 'waiting' })
    expect(working.waits).toEqual([
      expect.objectContaining({
        kind: 'tool',
        toolName: 'lookup',
        toolCallId: 'c1',
        on: 'a2',
        stuck: false,
        claim: { key, state: 'held', attempt: 1, expiresAt: claim.expiresAt },
      }),
    ])
    expect(working.waits[0]?.says).toContain(new Date(claim.expiresAt).toISOString())

    const later = diagnose(state, { claims, now: claim.expiresAt + 1 })
    expect(later.status).toBe('stuck')
    expect(later.waits[0]).toMatchObject({ kind: 'tool', stuck: true, claim: { state: 'lapsed' } })
    expect(later.waits[0]?.says).toContain('takes it over as attempt 2')
    release()
    await a.runtime.idle()
  })

  it('an approval: waiting on someone, naming the tool', async () => {
    const script = scriptedModel([
      toolCalls({ toolCallId: 'c1', toolName: 'closeTicket', input: { ticketId: 'A' } }),
    ])
    const a = track(
      agent({
        name: 'inspect-approval',
        model: script.model,
        tools: {
          closeTicket: tool({
            inputSchema: z.object({ ticketId: z.string() }),
            execute: async () => ({ closed: true }),
          }),
        },
        harness: { type: 'ai-sdk', generation: { toolApproval: { closeTicket: 'user-approval' } } },
      }),
    )
    await a.session('s').append(...inputs.message(userMessage('m1', 'close A')))
    await a.runtime.idle()
    const events = await eventsOf(a, 's')
    const { state } = stateAt(events, headOf(events))
    const approval = state.pendingApprovals[0]
    const diagnosis = diagnose(state, { claims: await claimsOf(a, 's', events), now: Date.now() })
    expect(diagnosis).toMatchObject({ status: 'waiting', phase: 'waiting' })
    expect(diagnosis.waits).toEqual([
      expect.objectContaining({
        kind: 'approval',
        approvalId: approval?.approvalId,
        toolName: 'closeTicket',
        on: 'someone',
      }),
    ])
  })

  it('a failed model call waits for a retry, with its error', async () => {
    const a = track(
      agent({ name: 'inspect-failed', model: scriptedModel([{ error: 'rate limited' }]).model }),
    )
    await a.session('s').append(...inputs.message(userMessage('m1', 'hello')))
    await a.runtime.idle()
    const events = await eventsOf(a, 's')
    const { state } = stateAt(events, headOf(events))
    const diagnosis = diagnose(state, { now: Date.now() })
    expect(diagnosis).toMatchObject({ status: 'waiting', phase: 'failed' })
    expect(diagnosis.waits).toEqual([
      expect.objectContaining({ kind: 'retry', error: expect.stringContaining('rate limited') }),
    ])
  })

  it('nothing woken: moves due that nobody wrote, then a model step no worker took, and once its lane gives up, a failed turn that names the dead letter and waits for a retry', async () => {
    const a = track(
      agent({
        name: 'inspect-unwoken',
        model: scriptedModel([text('x')]).model,
        dispatcher: { wake: async () => {} },
      }),
    )
    // The log's own append: a command whose writer died before it decided it.
    await a.runtime.log.session('s').append(inputs.message(userMessage('m1', 'hello')))
    let events = await eventsOf(a, 's')
    let diagnosis = diagnose(stateAt(events, headOf(events)).state, { now: Date.now() })
    expect(diagnosis.status).toBe('stuck')
    expect(diagnosis.waits).toEqual([
      expect.objectContaining({
        kind: 'due',
        stuck: true,
        events: expect.arrayContaining([expect.objectContaining({ type: 'ai.message.created' })]),
      }),
    ])

    await a.runtime.run({ sessionId: 's', lane: 'admission' })
    events = await eventsOf(a, 's')
    diagnosis = diagnose(stateAt(events, headOf(events)).state, {
      claims: await claimsOf(a, 's', events),
      now: Date.now(),
    })
    expect(diagnosis.status).toBe('stuck')
    expect(diagnosis.waits).toEqual([
      expect.objectContaining({
        kind: 'model-step',
        step: 1,
        claim: expect.objectContaining({ state: 'none' }),
      }),
    ])
    expect(diagnosis.waits[0]?.says).toContain('no worker ever took it')

    await a.runtime.deadLetter(
      { sessionId: 's', lane: 'generation' },
      { error: new Error('model endpoint unreachable'), attempts: 5, occurrence: '1' },
    )
    events = await eventsOf(a, 's')
    const { state } = stateAt(events, headOf(events))
    diagnosis = diagnose(state, { claims: await claimsOf(a, 's', events), now: Date.now() })
    expect(diagnosis.status).not.toBe('stuck')
    expect(diagnosis.waits).toEqual([
      expect.objectContaining({
        kind: 'retry',
        on: 'someone',
        error: 'The model step was given up after 5 attempts: model endpoint unreachable',
      }),
    ])
    expect(diagnosis.deadLetters).toEqual([
      expect.objectContaining({
        lane: 'generation',
        error: 'model endpoint unreachable',
        attempts: 5,
      }),
    ])
  })

  it('Pause now with a tool that ignores its abort: a settle timer fires one claim TTL after the pause', async () => {
    let runs = 0
    const a = track(
      agent({
        name: 'inspect-pausing',
        model: scriptedModel([toolCalls({ toolCallId: 'c1', toolName: 'stuck', input: {} })]).model,
        claimTtlMs: 5_000,
        tools: {
          stuck: tool({
            inputSchema: z.object({}),
            execute: async () => {
              runs++
              await new Promise(() => {})
            },
          }),
        },
      }),
    )
    await a.session('s').append(...inputs.message(userMessage('m1', 'do it')))
    await until(() => runs === 1)
    await a.session('s').append(...inputs.pause({ when: 'now' }))
    await until(async () => (await a.session('s').state()).state.active?.phase === 'pausing')
    const events = await eventsOf(a, 's')
    const { state } = stateAt(events, headOf(events))
    const since = state.active?.pausingSince ?? 0
    const claims = await claimsOf(a, 's', events)
    const diagnosis = diagnose(state, { claims, now: since + 1, claimTtlMs: 5_000 })
    expect(diagnosis).toMatchObject({ status: 'waiting', phase: 'pausing' })
    expect(diagnosis.waits).toEqual([
      expect.objectContaining({
        kind: 'settle-timer',
        toolName: 'stuck',
        on: 'timer',
        firesAt: since + 5_000,
        stuck: false,
      }),
    ])
    const overdue = diagnose(state, { claims, now: since + 6_000, claimTtlMs: 5_000 })
    expect(overdue.status).toBe('stuck')
  })
})
