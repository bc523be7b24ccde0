import { describe, expect, it } from 'vitest'
import { inputs } from '../../../../shared/ai.ts'
import { FakeSession, userMessage } from '../../../support/fake-session.ts'

describe('Inbox and turn controls', () => {
  it('Given an active turn, When more messages are sent, Then "the controller admits one input at a time": they wait in state.inbox.items in arrival order, outside the transcript', () => {
    const session = new FakeSession()
    session.push(inputs.message(userMessage('m1')))
    session.push(inputs.message(userMessage('m2')))
    session.push(inputs.message(userMessage('m3')))
    expect(session.messageIds()).toEqual(['m1'])
    expect(session.inboxIds()).toEqual(['m2', 'm3'])
    session.respond('one')
    expect(session.messageIds()).toEqual(['m1', 'a2.ai:response:m1', 'm2'])
    expect(session.inboxIds()).toEqual(['m3'])
  })

  it('Given an admitted message, When it is edited, Then "an edit after admission is rejected" with not-pending', () => {
    const session = new FakeSession()
    session.push(inputs.message(userMessage('m1', 'original')))
    const decision = session.push(inputs.queue.edit(userMessage('m1', 'changed')))
    expect(decision).toMatchObject({ outcome: 'rejected', reason: 'not-pending' })
    expect(session.state.messages[0]?.parts).toEqual([{ type: 'text', text: 'original' }])
    expect(session.lastReceipt()).toMatchObject({ outcome: 'rejected', reason: 'not-pending' })
  })

  it('Given a queued message, When it is edited twice, Then "edits are last-write-wins in log order" and the admitted message is the last edit', () => {
    const session = new FakeSession()
    session.push(inputs.message(userMessage('m1')))
    session.push(inputs.message(userMessage('m2', 'draft')))
    session.push(inputs.queue.edit(userMessage('m2', 'second')))
    session.push(inputs.queue.edit(userMessage('m2', 'third')))
    expect(session.state.inbox.items[0]?.message.parts).toEqual([{ type: 'text', text: 'third' }])
    session.respond('ok')
    expect(session.state.messages.find((message) => message.id === 'm2')?.parts).toEqual([
      { type: 'text', text: 'third' },
    ])
    const created = session
      .eventsOf('ai.message.created')
      .find((event) => (event.payload as { inputId: string }).inputId === 'm2')
    // The log stores the message once: admission points at the last edit instead of copying it.
    expect(created?.payload).toMatchObject({ commandId: expect.stringMatching(/^cmd-/) })
  })

  it('Given a queued user message, When an edit changes its role, Then it returns role-mismatch and the content stays', () => {
    const session = new FakeSession()
    session.push(inputs.message(userMessage('m1')))
    session.push(inputs.message(userMessage('m2', 'mine')))
    const decision = session.push(
      inputs.queue.edit({
        id: 'm2',
        role: 'assistant',
        parts: [{ type: 'text', text: 'not yours' }],
      }),
    )
    expect(decision).toMatchObject({ outcome: 'rejected', reason: 'role-mismatch' })
    expect(session.state.inbox.items[0]?.message.parts).toEqual([{ type: 'text', text: 'mine' }])
  })

  it('Given inputs that are admitted, removed or never queued, When they are removed, Then it returns not-pending; "queue.remove() keeps the original submission in the log"', () => {
    const session = new FakeSession()
    session.push(inputs.message(userMessage('m1')))
    session.push(inputs.message(userMessage('m2')))
    expect(session.push(inputs.queue.remove('m2')).outcome).toBe('applied')
    expect(session.inboxIds()).toEqual([])
    expect(
      session.log.some((event) => event.id === 'm2' && event.type === 'ai.control.requested'),
    ).toBe(true)
    expect(session.push(inputs.queue.remove('m2'))).toMatchObject({ reason: 'not-pending' })
    expect(session.push(inputs.queue.remove('m1'))).toMatchObject({ reason: 'not-pending' })
    expect(session.push(inputs.queue.remove('never'))).toMatchObject({ reason: 'not-pending' })
  })

  it('Given an edit pushed while its message waits, When admission wins the race, Then the edit returns not-pending', () => {
    const session = new FakeSession()
    session.push(inputs.message(userMessage('m1')))
    session.push(inputs.message(userMessage('m2', 'before')))
    session.respond('done') // m2 is admitted before the edit is decided
    const decision = session.push(inputs.queue.edit(userMessage('m2', 'too late')))
    expect(decision).toMatchObject({ outcome: 'rejected', reason: 'not-pending' })
    expect(session.state.messages.find((message) => message.id === 'm2')?.parts).toEqual([
      { type: 'text', text: 'before' },
    ])
  })

  it('Given a queue, When queue.move() takes beforeId: null, Then the input moves to the end; with an ID it moves before it', () => {
    const session = new FakeSession()
    session.push(inputs.message(userMessage('m1')))
    for (const id of ['a', 'b', 'c']) session.push(inputs.message(userMessage(id)))
    session.push(inputs.queue.move({ inputId: 'a', beforeId: null }))
    expect(session.inboxIds()).toEqual(['b', 'c', 'a'])
    session.push(inputs.queue.move({ inputId: 'a', beforeId: 'b' }))
    expect(session.inboxIds()).toEqual(['a', 'b', 'c'])
    session.respond('next')
    expect(session.state.active?.inputId).toBe('a')
  })

  it('Given a finished turn, When a Stop aimed at it arrives, Then it returns stale-turn', () => {
    const session = new FakeSession()
    session.push(inputs.message(userMessage('m1')))
    const turnId = session.state.active?.turnId as string
    session.respond('done')
    expect(session.push(inputs.stop({ turnId, frontier: session.index }))).toMatchObject({
      outcome: 'rejected',
      reason: 'stale-turn',
    })
  })

  it('Given a stale observed turn, When Send now is pushed, Then it returns stale-turn "without changing the queue"', () => {
    const session = new FakeSession()
    session.push(inputs.message(userMessage('m1')))
    const observed = session.state.active?.turnId as string
    session.push(inputs.message(userMessage('m2')))
    session.push(inputs.message(userMessage('m3')))
    session.respond('done') // m2 now runs; the client still shows m1's turn
    const before = session.inboxIds()
    expect(session.push(inputs.queue.sendNow('m3', { afterStepOf: observed }))).toMatchObject({
      reason: 'stale-turn',
    })
    expect(session.inboxIds()).toEqual(before)
    expect(session.state.inbox.items[0]?.afterStepOf).toBeNull()
  })

  it('Given queued non-user context, When Send now is pushed, Then it returns not-user-input', () => {
    const session = new FakeSession()
    session.push(inputs.message(userMessage('m1')))
    session.push(
      inputs.seed({ id: 'ctx', role: 'assistant', parts: [{ type: 'text', text: 'imported' }] }),
    )
    const turnId = session.state.active?.turnId as string
    expect(session.push(inputs.queue.sendNow('ctx', { afterStepOf: turnId }))).toMatchObject({
      reason: 'not-user-input',
    })
  })
})
