import { describe, expect, it } from 'vitest'
import { inputs } from '../../../../../shared/ai/index.ts'
import { agent } from '../../../../../shared/ai/server/index.ts'
import type { LanePorts } from '../../../../../shared/ai/server/lanes/lane-ports.ts'
import { progressWriter } from '../../../../../shared/ai/server/lanes/progress-writer.ts'
import { stateCache } from '../../../../../shared/ai/server/state-cache.ts'
import { sessionReducer } from '../../../../../shared/ai/state/session-state.ts'
import {
  type AppendOptions,
  type EventStore,
  eventLog,
  memoryEventStore,
} from '../../../../../shared/index.ts'
import { scriptedModel, text } from '../../../../../shared/testing/scripted-model.ts'
import { textOf, track, until, userMessage } from '../../../../support/agent-log.ts'

const silent = { info: () => {}, warn: () => {}, error: () => {} }

/** A memory store that records the options of every append with progress in it. */
function recordingStore() {
  const inner = memoryEventStore()
  const progressAppends: { types: string[]; options: AppendOptions | undefined }[] = []
  const store: EventStore = {
    ...inner,
    append: async (sessionId, events, options) => {
      if (events.some((event) => event.type === 'ai.generation.progress'))
        progressAppends.push({ types: events.map((event) => event.type), options })
      return inner.append(sessionId, events, options)
    },
  }
  return { store, progressAppends }
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
    const progressOnly = progressAppends.filter((append) =>
      append.types.every((type) => type === 'ai.generation.progress'),
    )
    expect(progressOnly.length).toBeGreaterThan(1)
    for (const { options } of progressOnly) {
      expect(options).toMatchObject({ guardIds: false, expectedIndex: expect.any(Number) })
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
    const store = memoryEventStore()
    const log = eventLog({ store })
    // Exactly the ports a progress writer is given: no cast, nothing else.
    const lane: Pick<LanePorts, 'append' | 'read' | 'state'> = {
      state: stateCache(log, sessionReducer(undefined)),
      read: (sessionId, range) => log.session(sessionId).read(range),
      append: (sessionId, events, options) =>
        log.session(sessionId).append(events, { ...options, author: 'a2' }),
    }
    const writer = progressWriter(lane, 's', { generationId: 'g1', claim: 'gen:r1', attempt: 1 })
    const progress = (n: number) => ({
      id: `a2.ai:progress:g1:${n}`,
      type: 'ai.generation.progress' as const,
      payload: { generationId: 'g1', chunks: [] },
    })
    await writer.write(progress(1))
    // Sent again after an unknown outcome: found in the log, not written twice.
    const repeat = progressWriter(lane, 's', { generationId: 'g1', claim: 'gen:r1', attempt: 1 })
    await repeat.write(progress(1))
    expect((await store.read('s')).map((event) => event.id)).toEqual(['a2.ai:progress:g1:1'])
    // Another event moved the head; g1 is not a running generation here: fenced out.
    await log.session('s').append([{ id: 'other', type: 'app.note', payload: {} }])
    await expect(writer.write(progress(2))).rejects.toMatchObject({ code: 'FENCED_OUT' })
    expect(await store.head('s')).toBe(2)
  })
})
