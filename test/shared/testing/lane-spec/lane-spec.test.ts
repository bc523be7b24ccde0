import { describe, expect, it } from 'vitest'
import { inputs } from '../../../../shared/ai.ts'
import { hasA2Code } from '../../../../shared/log/error-brand.ts'
import { MAX_EVENTS_PER_APPEND } from '../../../../shared/log/limits.ts'
import { FakeSession, LaneSpecFailure, laneSpec, text } from '../../../../shared/testing/index.ts'
import { userMessage } from '../../../support/conversation.ts'

// The kit itself: a case that does not hold fails, saying where, and one
// that holds passes whatever the lane derives beyond what it names.

const spec = laneSpec()
const admission = { lane: 'admission' } as const
const message = () => inputs.message(userMessage('m1', 'Close my ticket'))

/** The four events the controller appends for an admitted message, by type only. */
const admitted = [
  { type: 'ai.message.created' },
  { type: 'ai.control.committed' },
  { type: 'ai.control.decided' },
  { type: 'ai.generation.requested' },
] as const

/** The failure a case rejects with (the test fails if it holds). */
async function failureOf(run: Promise<unknown>): Promise<LaneSpecFailure> {
  const error = await run.then(
    () => undefined,
    (caught: unknown) => caught,
  )
  if (!(error instanceof LaneSpecFailure))
    throw new Error(`expected a LaneSpecFailure, got ${String(error)}`)
  return error
}

describe('laneSpec', () => {
  it('passes a case that names only types, ignoring the IDs and payloads the lane derives', async () => {
    const run = await spec.given(message()).when(admission).thenAppends(admitted)
    expect(run.appended.map((event) => event.id)).toContain('a2.ai:decided:m1')
    expect(run.outcome).toEqual({ kind: 'done' })
  })

  it('reports a wrong append with a diff of the field that differs', async () => {
    const failure = await failureOf(
      spec
        .given(message())
        .when(admission)
        .thenAppends([
          admitted[0],
          admitted[1],
          { type: 'ai.control.decided', payload: { action: 'message', outcome: 'rejected' } },
          admitted[3],
        ]),
    )
    expect(failure.message).toContain(
      "The admission lane's run: expected 4 appends, the lane appended 4:",
    )
    expect(failure.message).toContain('#1 ✓ ai.message.created')
    expect(failure.message).toContain('#3 ✗ ai.control.decided')
    expect(failure.message).toContain('payload.outcome: expected "rejected", got "applied"')
    expect(failure.message).not.toContain('payload.action')
    // What a test runner shows a diff of: the expectations beside what was
    // appended, cut down to the fields they name.
    expect(failure.showDiff).toBe(true)
    expect(failure.actual).toEqual([
      { type: 'ai.message.created' },
      { type: 'ai.control.committed' },
      { type: 'ai.control.decided', payload: { action: 'message', outcome: 'applied' } },
      { type: 'ai.generation.requested' },
    ])
  })

  it('fails when an expected append is missing', async () => {
    const failure = await failureOf(
      spec
        .given(message())
        .when(admission)
        .thenAppends([...admitted, { type: 'ai.generation.started' }]),
    )
    expect(failure.message).toContain('expected 5 appends, the lane appended 4:')
    expect(failure.message).toContain('#5 missing: ai.generation.started')
  })

  it('fails on an append nobody expected, and on one of another type', async () => {
    const extra = await failureOf(
      spec.given(message()).when(admission).thenAppends(admitted.slice(0, 3)),
    )
    expect(extra.message).toMatch(/#4 unexpected: ai\.generation\.requested \{"requestId"/)
    const swapped = await failureOf(
      spec
        .given(message())
        .when(admission)
        .thenAppends([admitted[1], admitted[0], admitted[2], admitted[3]]),
    )
    expect(swapped.message).toContain('type: expected ai.control.committed, got ai.message.created')
  })

  it('types an expectation by its event: an unknown type or a payload its schema refuses does not compile', async () => {
    const unknownType = await failureOf(
      spec
        .given(message())
        .when(admission)
        // @ts-expect-error: no event has this type
        .thenAppends([{ type: 'ai.control.guessed' }]),
    )
    expect(unknownType.message).toContain(
      'type: expected ai.control.guessed, got ai.message.created',
    )
    const wrongValue = await failureOf(
      spec
        .given(message())
        .when(admission)
        .thenAppends([
          admitted[0],
          admitted[1],
          // @ts-expect-error: a decision's outcome is applied or rejected
          { type: 'ai.control.decided', payload: { outcome: 'maybe' } },
          admitted[3],
        ]),
    )
    expect(wrongValue.message).toContain('payload.outcome: expected "maybe", got "applied"')
  })

  it('holds an ID to the expectation only when the expectation gives one', async () => {
    const failure = await failureOf(
      spec
        .given(message())
        .when(admission)
        .thenAppends([{ ...admitted[0], id: 'created-1' }, admitted[1], admitted[2], admitted[3]]),
    )
    expect(failure.message).toContain('id: expected "created-1", got "a2.ai:created:m1"')
  })

  it('compares arrays item by item and by length', async () => {
    const failure = await failureOf(
      spec
        .given(message())
        .when(admission)
        .thenAppends([
          admitted[0],
          {
            type: 'ai.control.committed',
            payload: { changes: [{ op: 'turn.start' }, { op: 'inbox.add' }] },
          },
          admitted[2],
          admitted[3],
        ]),
    )
    expect(failure.message).toContain('payload.changes: expected 2 items, got 1')
  })

  it('thenNothing fails when the lane appends, listing what it appended', async () => {
    const failure = await failureOf(spec.given(message()).when(admission).thenNothing())
    expect(failure.message).toContain('expected 0 appends, the lane appended 4:')
    expect(failure.message).toContain('1. ai.message.created')
  })

  it('thenThrows passes on the code or message expected, and fails on another or none', async () => {
    const failing = laneSpec({
      agent: {
        modelCatalog: { fetch: async () => new Response('down', { status: 503 }) },
      },
    })
    const requested = [
      { id: 'r1', type: 'ai.model.metadata.requested', payload: { modelId: 'test/a' } },
    ] as const
    const metadata = { lane: 'metadata', key: 'test/a' } as const
    await failing
      .given(requested)
      .when(metadata)
      .thenThrows(/answered 503/)
    await failing.given(requested).when(metadata).thenThrows()
    const other = await failureOf(
      failing.given(requested).when(metadata).thenThrows('APPEND_CONFLICT'),
    )
    expect(other.message).toMatch(/failed with ".*answered 503", expected code APPEND_CONFLICT/)
    const none = await failureOf(spec.given(message()).when(admission).thenThrows())
    expect(none.message).toContain(
      'did not fail (expected a failure); it appended ai.message.created, ai.control.committed',
    )
  })

  it('checks the given events against their schemas', async () => {
    const error = await spec
      .given([{ id: 'r1', type: 'ai.model.metadata.requested', payload: { modelId: '' } }])
      .when({ lane: 'metadata' })
      .run()
      .then(
        () => undefined,
        (caught: unknown) => caught,
      )
    expect(hasA2Code(error, 'INVALID_EVENT')).toBe(true)
  })

  it('runs a wake-up whose key is undefined as the unkeyed one, for the whole session', async () => {
    const history = new FakeSession()
    history.push(message())
    const generationId = history.start()
    history.callTool(generationId, 'call-1')
    const run = await spec.given(history).when({ lane: 'tools', key: undefined }).thenNothing()
    expect(run.wakeUps).toEqual([
      expect.objectContaining({ lane: 'tools', key: expect.stringContaining('call-1') }),
    ])
  })

  it("gives each case a scripted model of its own on the spec's script", async () => {
    const history = new FakeSession()
    history.push(message())
    const scripted = laneSpec({ script: [text('first'), text('second')] })
    for (const _ of [1, 2]) {
      const { appended } = await scripted.given(history).when({ lane: 'generation' }).run()
      expect(JSON.stringify(appended)).toContain('"delta":"first"')
    }
  })

  it("starts from a FakeSession's history, and each case from a store of its own", async () => {
    const history = new FakeSession()
    history.push(message())
    history.respond('Closed.')
    const run = await spec.given(history).when(admission).thenNothing()
    expect(run.wakeUps).toEqual([])
    // The same spec, a new case: the history above is not in its log.
    await spec.given(message()).when(admission).thenAppends(admitted)
  })

  it('seeds a history longer than one append may carry', async () => {
    const history = new FakeSession()
    for (let turn = 1; turn <= 12; turn++) {
      history.push(inputs.message(userMessage(`m${turn}`, `question ${turn}`)))
      history.respond(`answer ${turn}`)
    }
    expect(history.log.length).toBeGreaterThan(MAX_EVENTS_PER_APPEND)
    history.append(...inputs.message(userMessage('m13', 'one more')))
    await spec
      .given(history)
      .when(admission)
      .thenAppends([
        { type: 'ai.message.created', payload: { inputId: 'm13' } },
        { type: 'ai.control.committed' },
        { type: 'ai.control.decided' },
        { type: 'ai.generation.requested', payload: { turnId: 'a2.ai:turn:m13' } },
      ])
  })
})
