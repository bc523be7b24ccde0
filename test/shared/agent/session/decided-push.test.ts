import { describe, expect, it } from 'vitest'
import { agent } from '../../../../shared/agent/index.ts'
import { inputs } from '../../../../shared/ai.ts'
import type { EventStore, StoredEvent } from '../../../../shared/index.ts'
import type { WakeUp } from '../../../../shared/runtime/wake-up.ts'
import { memoryEventStore } from '../../../../shared/stores/memory/memory-event-store.ts'
import { scriptedModel, text } from '../../../../shared/testing/scripted-model.ts'
import { textOf, track, userMessage } from '../../../support/agent-log.ts'

// A plain message is decided where it is written (shared/agent/session/decided-push.ts):
// the POST's append carries the controller's decision, so the turn wakes
// the model step at once and admission has nothing to do.

const url = 'http://a2.test/api/agent?sessionId=s1'
const post = (events: unknown[]) =>
  new Request(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ events }),
  })

/** A store that records each append's event types, and may let another writer in first. */
function recordingStore(interleave?: (store: EventStore) => Promise<boolean>) {
  const store = memoryEventStore()
  const appends: string[][] = []
  const recorded: EventStore = {
    ...store,
    async append(sessionId, events, options) {
      if (options?.expectedIndex !== undefined && interleave && (await interleave(store))) {
        // Another writer's event lands first: this append's index is taken.
      }
      const result = await store.append(sessionId, events, options)
      if (!result.replayed) appends.push(result.events.map((event) => event.type))
      return result
    },
  }
  return { store: recorded, appends }
}

/** A dispatcher that only records what it is asked to wake: the test runs the lanes. */
function recordingDispatcher() {
  const woken: WakeUp[] = []
  return {
    dispatcher: { wake: async (wakeUps: readonly WakeUp[]) => void woken.push(...wakeUps) },
    woken,
  }
}

async function drain(a: ReturnType<typeof agent>, woken: WakeUp[]): Promise<string[]> {
  const ran: string[] = []
  for (let guard = 0; woken.length > 0 && guard < 50; guard++) {
    const next = woken.shift() as WakeUp
    ran.push(next.lane)
    await a.runtime.run(next)
  }
  return ran
}

describe('a plain message decided where it is written', () => {
  it("stores a POSTed message with the controller's decision in one append, answers with the pushed event alone, and wakes the model step, not admission", async () => {
    const { store, appends } = recordingStore()
    const { dispatcher, woken } = recordingDispatcher()
    const a = track(
      agent({ name: 'decided', model: scriptedModel([text('Hello')]).model, store, dispatcher }),
    )
    const response = await a.fetch(post(inputs.message(userMessage('m1', 'Hi'))))
    expect(response.status).toBe(200)
    const { events } = (await response.json()) as { events: StoredEvent[] }
    expect(events.map((event) => [event.type, event.index])).toEqual([['ai.control.requested', 1]])
    expect(appends).toHaveLength(1)
    expect(appends[0]?.[0]).toBe('ai.control.requested')
    expect(appends[0]).toContain('ai.control.decided')
    expect(appends[0]?.at(-1)).toBe('ai.generation.requested')
    expect(woken.map((wakeUp) => wakeUp.lane)).toEqual(['generation'])
    expect(await drain(a, woken)).not.toContain('admission')
    const { state } = await a.session('s1').state()
    expect(state.messages.map(textOf)).toEqual(['Hi', 'Hello'])
    expect(state.active).toBeNull()
  })

  it('answers the same POST sent again with the command as first stored, and writes and answers nothing twice', async () => {
    const { store, appends } = recordingStore()
    const { dispatcher, woken } = recordingDispatcher()
    const a = track(
      agent({ name: 'decided', model: scriptedModel([text('Once')]).model, store, dispatcher }),
    )
    const push = inputs.message(userMessage('m1', 'Hi'))
    const first = (await (await a.fetch(post(push))).json()) as { events: StoredEvent[] }
    const head = await store.head('s1')
    const again = await a.fetch(post(push))
    expect(again.status).toBe(200)
    expect(((await again.json()) as { events: StoredEvent[] }).events).toEqual(first.events)
    expect(await store.head('s1')).toBe(head)
    expect(appends).toHaveLength(1)
    await drain(a, woken)
    const { state } = await a.session('s1').state()
    expect(state.messages.map(textOf)).toEqual(['Hi', 'Once'])
  })

  it('recovers the session when a push sent again finds its message stored by a try that failed after it committed, and woke nothing', async () => {
    const inner = memoryEventStore()
    let lose = 2
    // The first POST's append commits, and both of the log's tries lose their answer.
    const store: EventStore = {
      ...inner,
      async append(sessionId, events, options) {
        const result = await inner.append(sessionId, events, options)
        if (lose > 0 && events.length > 0) {
          lose--
          const error = new Error('Connection timed out after 3000 ms')
          error.name = 'TimeoutError'
          throw error
        }
        return result
      },
    }
    const { dispatcher, woken } = recordingDispatcher()
    const a = track(
      agent({
        name: 'decided',
        model: scriptedModel([text('Hello')]).model,
        store,
        dispatcher,
        logger: { info() {}, warn() {}, error() {} },
      }),
    )
    const push = inputs.message(userMessage('m1', 'Hi'))
    expect((await a.fetch(post(push))).status).toBe(500)
    expect(woken).toEqual([])
    // The page sends it again: its message is there, decided, its step never woken.
    expect((await a.fetch(post(push))).status).toBe(200)
    expect(woken).toContainEqual({ sessionId: 's1', lane: 'admission', key: 'recover' })
    await drain(a, woken)
    const { state } = await a.session('s1').state()
    expect(state.messages.map(textOf)).toEqual(['Hi', 'Hello'])
  })

  it('leaves a Stop to admission, which revokes the running step before it decides', async () => {
    const { store, appends } = recordingStore()
    const { dispatcher, woken } = recordingDispatcher()
    const a = track(
      agent({ name: 'decided', model: scriptedModel([text('Long')]).model, store, dispatcher }),
    )
    await a.fetch(post(inputs.message(userMessage('m1', 'Hi'))))
    woken.length = 0
    const { state, index } = await a.session('s1').state()
    const turnId = state.active?.turnId as string
    await a.fetch(post(inputs.stop({ turnId, frontier: index })))
    // Stop ends requested work (its claim must be revoked first): the command alone.
    expect(appends.at(-1)).toEqual(['ai.control.requested'])
    expect(woken.map((wakeUp) => wakeUp.lane)).toEqual(['admission'])
    await drain(a, woken)
    const after = await a.session('s1').state()
    expect(after.state.active).toBeNull()
  })

  it('decides again on the news when another writer took the index, and leaves it to admission when that happens twice', async () => {
    let taken = 0
    const takeIndex = (times: number) => async (inner: EventStore) => {
      if (taken >= times) return false
      taken++
      await inner.append('s1', [{ id: crypto.randomUUID(), type: 'note.added', payload: {} }])
      return true
    }
    for (const [times, decidedInPost] of [
      [1, true],
      [2, false],
    ] as const) {
      taken = 0
      const { store, appends } = recordingStore(takeIndex(times))
      const { dispatcher, woken } = recordingDispatcher()
      const a = track(
        agent({ name: 'decided', model: scriptedModel([text('Hello')]).model, store, dispatcher }),
      )
      const response = await a.fetch(post(inputs.message(userMessage('m1', 'Hi'))))
      expect(response.status).toBe(200)
      expect(appends.at(-1)?.includes('ai.generation.requested')).toBe(decidedInPost)
      expect(woken.map((wakeUp) => wakeUp.lane)).toEqual(
        decidedInPost ? ['generation'] : ['admission'],
      )
      await drain(a, woken)
      const { state } = await a.session('s1').state()
      expect(state.messages.map(textOf)).toEqual(['Hi', 'Hello'])
    }
  })

  it("decides a service's message from the ingress queue (runtime.append) the same way, answering with the events given", async () => {
    const { store, appends } = recordingStore()
    const { dispatcher, woken } = recordingDispatcher()
    const a = track(
      agent({ name: 'decided', model: scriptedModel([text('Hello')]).model, store, dispatcher }),
    )
    const stored = await a.runtime.append('s1', inputs.message(userMessage('m1', 'Hi')))
    expect(stored.map((event) => event.type)).toEqual(['ai.control.requested'])
    expect(appends[0]?.at(-1)).toBe('ai.generation.requested')
    expect(woken.map((wakeUp) => wakeUp.lane)).toEqual(['generation'])
  })
})
