import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import type { CompatibilityFinding } from '../../../../shared/agent/compatibility/compatibility-report.ts'
import { foldCheck } from '../../../../shared/agent/compatibility/fold-check.ts'
import { contract } from '../../../../shared/index.ts'
import type { StoredEvent } from '../../../../shared/log/event.ts'

const notes = contract({ name: 'notes', events: { 'note.added': z.object({ text: z.string() }) } })
const note = (index: number): StoredEvent => ({
  id: `n${index}`,
  type: 'note.added',
  payload: { text: 'hi' },
  sessionId: 's',
  life: '',
  index,
  timestamp: 0,
})

describe('foldCheck', () => {
  it('upcasts each event with the contract before it validates and folds it', () => {
    const seen: unknown[] = []
    const upcast = <Event extends StoredEvent>(
      declared: { declares(type: string): boolean } | undefined,
      event: Event,
    ): Event => {
      seen.push([
        declared?.declares('note.added'),
        declared?.declares('ai.tool.called'),
        event.index,
      ])
      // An upcaster that fills in what the current schema asks for.
      return { ...event, payload: { text: String((event.payload as { text?: unknown }).text) } }
    }
    const findings: CompatibilityFinding[] = []
    const stale = { ...note(2), payload: { text: 7 } }
    foldCheck({ options: { contract: notes } }, upcast).run(
      { sessionId: 's', events: [note(1), stale] },
      findings,
    )
    expect(findings).toEqual([])
    // The app's events and A2's, in one contract.
    expect(seen).toEqual([
      [true, true, 1],
      [true, true, 2],
    ])
  })

  it('reports an event the upcasters fail on, and stops there: the log could not read the session', () => {
    const upcast = <Event extends StoredEvent>(_: unknown, event: Event): Event => {
      if (event.index === 2) throw new Error('no upcaster reads version 1')
      return event
    }
    const findings: CompatibilityFinding[] = []
    const state = foldCheck({ options: { contract: notes } }, upcast).run(
      { sessionId: 's', events: [note(1), note(2), note(3)] },
      findings,
    )
    expect(state).toBeUndefined()
    expect(findings).toEqual([
      expect.objectContaining({
        kind: 'upcast-failed',
        index: 2,
        type: 'note.added',
        message: expect.stringContaining('no upcaster reads version 1'),
      }),
    ])
  })
})
