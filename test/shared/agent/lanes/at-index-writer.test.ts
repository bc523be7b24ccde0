import { tool } from 'ai'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { agent } from '../../../../shared/agent/index.ts'
import { atIndexWriter } from '../../../../shared/agent/lanes/at-index-writer.ts'
import type { LanePorts } from '../../../../shared/agent/lanes/lane-ports.ts'
import { stateCache } from '../../../../shared/agent/session/state-cache.ts'
import { inputs } from '../../../../shared/ai.ts'
import {
  type AppendOptions,
  type EventStore,
  eventLog,
  memoryEventStore,
} from '../../../../shared/index.ts'
import { FencedOutError } from '../../../../shared/log/errors.ts'
import { sessionReducer } from '../../../../shared/model/state/session-state.ts'
import { scriptedModel, text, toolCalls } from '../../../../shared/testing/scripted-model.ts'
import { eventsOf, textOf, track, until, userMessage } from '../../../support/agent-log.ts'

const silent = { info: () => {}, warn: () => {}, error: () => {} }

const eventsOfType = async (a: Parameters<typeof eventsOf>[0], type: string) =>
  (await eventsOf(a, 's')).filter((event) => event.type === type)

/** A memory store that records the event types and options of every append. */
function recordingStore() {
  const inner = memoryEventStore()
  const appends: { types: string[]; options: AppendOptions | undefined }[] = []
  const store: EventStore = {
    ...inner,
    append: async (sessionId, events, options) => {
      appends.push({ types: events.map((event) => event.type), options })
      return inner.append(sessionId, events, options)
    },
  }
  const progressAppends = () =>
    appends.filter((append) => append.types.includes('ai.generation.progress'))
  return { store, appends, progressAppends }
}

/** The ports an at-index writer is given, over a bare log: no read-back of their own. */
function bareLanePorts() {
  const store = memoryEventStore()
  const log = eventLog({ store })
  const lane: Pick<LanePorts, 'append' | 'read' | 'state'> = {
    state: stateCache(log, sessionReducer(undefined)),
    read: (sessionId, range) => log.session(sessionId).read(range),
    append: (sessionId, events, { at, life, fence, progress }) =>
      log.session(sessionId).append(events, {
        author: 'a2',
        ...(at === 'end' ? {} : { expectedIndex: at, guardIds: false }),
        ...(life === undefined ? {} : { life }),
        ...(fence ? { fence } : {}),
        ...(progress ? { progress } : {}),
      }),
  }
  return { store, log, lane }
}

describe('streamed progress', () => {
  it('is written at the index the attempt knows, without ID guards or a claim check (the log is the fence)', async () => {
    const { store, progressAppends } = recordingStore()
    const a = track(
      agent({
        name: 'p',
        model: scriptedModel([text('A fairly long answer, streamed in parts.', { chunks: 8 })], {
          chunkDelayMs: 15,
        }).model,
        store,
        logger: silent,
      }),
    )
    await a.session('s').append(...inputs.message(userMessage('u1', 'hi')))
    const { state } = await until(async () => {
      const current = await a.session('s').state()
      return current.state.active === null && current.state.messages.length === 2 && current
    })
    expect(textOf(state.messages[1])).toBe('A fairly long answer, streamed in parts.')
    const progressOnly = progressAppends().filter((append) =>
      append.types.every((type) => type === 'ai.generation.progress'),
    )
    expect(progressOnly.length).toBeGreaterThan(1)
    for (const { options } of progressOnly) {
      expect(options).toMatchObject({
        guardIds: false,
        progress: true,
        expectedIndex: expect.any(Number),
      })
      expect(options?.fence).toBeUndefined()
    }
  })

  it('goes on at the new head when another writer appends mid-stream, losing and repeating nothing', async () => {
    const a = track(
      agent({
        name: 'p',
        model: scriptedModel([text('one two three four five six seven eight', { chunks: 8 })], {
          chunkDelayMs: 20,
        }).model,
        logger: silent,
      }),
    )
    await a.session('s').append(...inputs.message(userMessage('u1', 'hi')))
    // A service appends while the answer streams: every progress append after it conflicts once.
    for (let n = 0; n < 5; n++) {
      await new Promise((resolve) => setTimeout(resolve, 25))
      await a.session('s').append({ id: `note-${n}`, type: 'app.note', payload: { n } })
    }
    const { state } = await until(async () => {
      const current = await a.session('s').state()
      return current.state.active === null && current.state.messages.length === 2 && current
    })
    expect(textOf(state.messages[1])).toBe('one two three four five six seven eight')
    const events = await a.runtime.log.session('s').read()
    const progressIds = events
      .filter((event) => event.type === 'ai.generation.progress')
      .map((event) => event.id)
    expect(new Set(progressIds).size).toBe(progressIds.length)
  })

  it('is fenced out once its generation is no longer the current one, and a repeat finds its own event instead of writing twice', async () => {
    const { store, log, lane } = bareLanePorts()
    const goesOn = (state: { ai: { active: unknown } }) => {
      if (state.ai.active === null) throw new FencedOutError('s', 'gen:r1', 1)
    }
    const writer = atIndexWriter(lane, 's', { from: { index: 0 }, goesOn })
    const progress = (n: number) => ({
      id: `a2.ai:progress:g1:${n}`,
      type: 'ai.generation.progress' as const,
      payload: { generationId: 'g1', chunks: [] },
    })
    await writer.append([progress(1)], { progress: true })
    // Sent again after an unknown outcome: found in the log, not written twice.
    const repeat = atIndexWriter(lane, 's', { from: { index: 0 }, goesOn })
    await repeat.append([progress(1)], { progress: true })
    expect((await store.read('s')).map((event) => event.id)).toEqual(['a2.ai:progress:g1:1'])
    // Another event moved the head; nothing is running here: fenced out.
    await log.session('s').append([{ id: 'other', type: 'app.note', payload: {} }])
    await expect(writer.append([progress(2)], { progress: true })).rejects.toMatchObject({
      code: 'FENCED_OUT',
    })
    expect(await store.head('s')).toBe(2)
  })
})

describe("a step's and a tool call's own events", () => {
  const weather = tool({
    inputSchema: z.object({ city: z.string() }),
    execute: async ({ city }) => ({ city, forecast: 'sun' }),
  })

  /** A turn with one tool call, on a store that records every append, run until idle. */
  async function weatherTurn() {
    const { store, appends } = recordingStore()
    const a = track(
      agent({
        name: 'w',
        model: scriptedModel([
          toolCalls({ toolCallId: 'c1', toolName: 'weather', input: { city: 'Oslo' } }),
          text('Sunny in Oslo.'),
        ]).model,
        tools: { weather },
        store,
        logger: silent,
      }),
    )
    await a.session('s').append(...inputs.message(userMessage('u1', 'weather?')))
    await until(async () => {
      const { state } = await a.session('s').state()
      return state.active === null && state.messages.length === 2
    })
    await a.runtime.idle()
    return { a, appends }
  }

  it('go fenced, at the index the attempt knows, without ID guards; only the opening is guarded at the end', async () => {
    const { appends } = await weatherTurn()
    const of = (type: string) => appends.filter((append) => append.types.includes(type))
    expect(of('ai.generation.started')).toHaveLength(2)
    for (const { options } of of('ai.generation.started')) {
      expect(options?.guardIds).toBeUndefined()
      expect(options?.expectedIndex).toBeUndefined()
      expect(options?.fence).toBeDefined()
    }
    const unguarded = [
      ...of('ai.tool.called'),
      ...of('ai.tool.result'),
      ...of('ai.generation.completed'),
    ]
    expect(unguarded.length).toBeGreaterThanOrEqual(4)
    for (const { options } of unguarded) {
      expect(options).toMatchObject({
        guardIds: false,
        expectedIndex: expect.any(Number),
        fence: { attempt: 1 },
      })
      expect(options?.progress).toBeUndefined()
    }
  })

  it("carry the controller's decision after them, marked so that admission runs once a turn", async () => {
    const { a, appends } = await weatherTurn()
    // The step that made the call and its result, in either order: the
    // later of the two requests step 2 in its own append.
    const closing = appends.filter(
      ({ types }) => types[0] === 'ai.tool.result' || types[0] === 'ai.generation.completed',
    )
    expect(closing.flatMap(({ types }) => types.slice(1))).toContain('ai.generation.requested')
    // The last step's end completes the response in the same append.
    expect(closing.at(-1)?.types).toContain('ai.message.completed')
    const events = await a.runtime.log.session('s').read()
    for (const event of events.filter(
      (stored) => stored.type === 'ai.tool.result' || stored.type === 'ai.generation.completed',
    )) {
      expect(event.payload).toMatchObject({ decided: true })
    }
    // Admission appended only for the user's message: its commit and decision.
    const admissions = appends.filter(({ types }) => types.includes('ai.control.decided'))
    expect(admissions).toHaveLength(1)
  })

  it('land once, after what another writer appended meanwhile, as "at the end" would have put them', async () => {
    const release = (() => {
      let resolve = () => {}
      const promise = new Promise<void>((done) => {
        resolve = done
      })
      return { resolve: () => resolve(), promise }
    })()
    const slow = tool({
      inputSchema: z.object({ city: z.string() }),
      execute: async ({ city }) => {
        await release.promise
        return { city, forecast: 'rain' }
      },
    })
    const a = track(
      agent({
        name: 'w',
        model: scriptedModel([
          toolCalls({ toolCallId: 'c1', toolName: 'slow', input: { city: 'Bergen' } }),
          text('Rain in Bergen, as ever.', { chunks: 6 }),
        ]).model,
        tools: { slow },
        logger: silent,
      }),
    )
    await a.session('s').append(...inputs.message(userMessage('u1', 'weather?')))
    await until(async () => (await eventsOfType(a, 'ai.tool.called')).length === 1)
    // Services write while the tool runs: its result's first try conflicts.
    for (let n = 0; n < 3; n++) {
      await a.session('s').append({ id: `note-${n}`, type: 'app.note', payload: { n } })
    }
    release.resolve()
    const { state } = await until(async () => {
      const current = await a.session('s').state()
      return current.state.active === null && current.state.messages.length === 2 && current
    })
    expect(textOf(state.messages[1])).toContain('Rain in Bergen')
    const events = await a.runtime.log.session('s').read()
    const ids = events.map((event) => event.id)
    expect(new Set(ids).size).toBe(ids.length)
    const index = (type: string) => events.findIndex((event) => event.type === type)
    expect(events.filter((event) => event.type === 'ai.tool.result')).toHaveLength(1)
    expect(index('ai.tool.result')).toBeGreaterThan(
      events.findIndex((event) => event.id === 'note-2'),
    )
    expect(events.filter((event) => event.type === 'ai.generation.completed')).toHaveLength(2)
  })

  it('are written once when a fenced append is repeated after an unknown outcome', async () => {
    const { store, lane } = bareLanePorts()
    await store.claim('s', 'gen:r1', { ttlMs: 30_000 })
    const fence = { claim: 'gen:r1', attempt: 1 }
    const goesOn = () => {}
    const progress = (n: number) => ({
      id: `a2.ai:progress:g1:${n}`,
      type: 'ai.generation.progress' as const,
      payload: { generationId: 'g1', chunks: [] },
    })
    const step = [progress(1), progress(2)]
    await atIndexWriter(lane, 's', { from: { index: 0 }, goesOn }).append(step, { fence })
    const again = await atIndexWriter(lane, 's', { from: { index: 0 }, goesOn }).append(step, {
      fence,
    })
    expect(again.map((event) => event.index)).toEqual([1, 2])
    expect((await store.read('s')).map((event) => event.id)).toEqual(step.map((event) => event.id))
    // Once the claim moved on, the fence refuses it wherever the head is.
    await store.revokeClaim('s', 'gen:r1')
    await expect(
      atIndexWriter(lane, 's', { from: { index: 0 }, goesOn }).append([progress(3)], {
        fence,
      }),
    ).rejects.toMatchObject({ code: 'FENCED_OUT' })
  })
})
