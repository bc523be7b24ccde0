import { tool } from 'ai'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { agent } from '../../../shared/agent/index.ts'
import { inputs } from '../../../shared/ai.ts'
import {
  type EventStore,
  eventLog,
  exportSession,
  importSession,
  memoryEventStore,
  type StoredEvent,
} from '../../../shared/index.ts'
import { sessionReducer } from '../../../shared/model/state/session-state.ts'
import { scriptedModel, text, toolCalls } from '../../../shared/testing/scripted-model.ts'
import { track, userMessage } from '../../support/agent-log.ts'

const lookup = tool({
  description: 'Look a ticket up',
  inputSchema: z.object({ ticketId: z.string() }),
  execute: async ({ ticketId }) => ({ ticketId, status: 'open' }),
})

/** The agent's folded session state over a store, as JSON. */
async function foldedJson(store: EventStore, sessionId: string): Promise<string> {
  const { state, index } = await eventLog({ store })
    .session(sessionId)
    .state(sessionReducer(undefined))
  return JSON.stringify({ state, index })
}

/** A session's events as an export keeps them: all but the life, which is each store's own. */
const withoutLife = (events: readonly StoredEvent[]) =>
  events.map(({ life: _life, ...event }) => event)

/** A session with a turn that called a tool, streamed text, and a second message. */
async function recordedSession(): Promise<{ store: EventStore; jsonl: string }> {
  const store = memoryEventStore()
  const script = scriptedModel([
    toolCalls({ toolCallId: 'c1', toolName: 'lookup', input: { ticketId: 'T-1' } }),
    text('T-1 is open; an engineer has it.', { chunks: 5 }),
    text('You are welcome.'),
  ])
  const a = track(agent({ name: 'exporter', model: script.model, store, tools: { lookup } }))
  await a.session('s').append(...inputs.message(userMessage('m1', 'Status of T-1?')))
  await a.runtime.idle()
  await a.session('s').append(...inputs.message(userMessage('m2', 'Thanks')))
  await a.runtime.idle()
  return { store, jsonl: await a.session('s').export() }
}

describe('session export and import (JSONL)', () => {
  it('round-trips byte-identical folded state through an export imported into a fresh store', async () => {
    const { store, jsonl } = await recordedSession()
    const lines = jsonl.trimEnd().split('\n')
    expect(JSON.parse(lines[0] as string)).toEqual({
      format: 'a2-aws.session',
      version: 1,
      sessionId: 's',
      events: lines.length - 1,
    })
    expect(lines.length - 1).toBe(await store.head('s'))

    const fresh = memoryEventStore()
    expect(await importSession(fresh, jsonl)).toEqual({ sessionId: 's', events: lines.length - 1 })
    expect(await foldedJson(fresh, 's')).toBe(await foldedJson(store, 's'))
    // The events themselves, timestamps included, and so the export again.
    expect(withoutLife(await fresh.read('s'))).toEqual(withoutLife(await store.read('s')))
    const again = track(agent({ name: 'exporter', model: scriptedModel([]).model, store: fresh }))
    expect(await again.session('s').export()).toBe(jsonl)
  })

  it('imports under another session ID when asked', async () => {
    const { store, jsonl } = await recordedSession()
    const fresh = memoryEventStore()
    await importSession(fresh, jsonl, { sessionId: 'copy' })
    const original = JSON.parse(await foldedJson(store, 's'))
    const copy = JSON.parse(await foldedJson(fresh, 'copy'))
    expect(copy.state.messages).toEqual(original.state.messages)
    expect(await fresh.head('s')).toBe(0)
  })

  it('imports into an empty session only: SESSION_NOT_EMPTY otherwise, writing nothing', async () => {
    const { jsonl } = await recordedSession()
    const target = memoryEventStore()
    await target.append('s', [{ id: 'already', type: 'note', payload: {} }])
    const refused = await importSession(target, jsonl).catch((error: unknown) => error)
    expect(refused).toMatchObject({ code: 'SESSION_NOT_EMPTY', sessionId: 's', head: 1 })
    expect(await target.head('s')).toBe(1)
  })

  it('keeps batches within the append limits: 100 events of one timestamp import', async () => {
    const store = memoryEventStore({ now: () => 1_700_000_000_000 })
    const log = eventLog({ store })
    for (let batch = 0; batch < 4; batch++) {
      await log
        .session('big')
        .append(Array.from({ length: 25 }, (_, n) => ({ type: 'note', payload: { n, batch } })))
    }
    const fresh = memoryEventStore()
    expect(await importSession(fresh, await exportSession(store, 'big'))).toMatchObject({
      events: 100,
    })
    expect(withoutLife(await fresh.read('big'))).toEqual(withoutLife(await store.read('big')))
  })

  it('refuses an export it cannot read with INVALID_EXPORT, naming the line, writing nothing', async () => {
    const { jsonl } = await recordedSession()
    const lines = jsonl.trimEnd().split('\n')
    const cases: [string, number][] = [
      ['{"format":"something else"}', 1],
      [[lines[0], 'not json', ...lines.slice(2)].join('\n'), 2],
      // A gap: the third line holds event 3.
      [[lines[0], ...lines.slice(2)].join('\n'), 2],
      [lines.slice(0, -1).join('\n'), lines.length - 1],
    ]
    for (const [text, line] of cases) {
      const target = memoryEventStore()
      const refused = await importSession(target, text).catch((error: unknown) => error)
      expect(refused).toMatchObject({ code: 'INVALID_EXPORT', line })
      expect(await target.head('s')).toBe(0)
    }
  })
})
