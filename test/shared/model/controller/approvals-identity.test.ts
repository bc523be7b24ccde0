import { describe, expect, it } from 'vitest'
import { decide } from '../../../../shared/model/controller/decide.ts'
import { aiContract } from '../../../support/ai-contract.ts'
import { inputs, type PendingApproval, ReservedIdCheck } from '../../../support/ai-imports.ts'
import { FakeSession, userMessage } from '../../../support/fake-session.ts'

describe('Approvals', () => {
  it('Given an approval from an earlier model step, When the provider reuses the tool-call ID in a later step, Then "a delayed click cannot authorize a later model step"', () => {
    const session = new FakeSession()
    session.push(inputs.message(userMessage('m1')))
    const first = session.start()
    session.callTool(first, 'call-1', { approval: 'ap-1' })
    const stale = session.state.pendingApprovals[0] as PendingApproval
    session.complete(first)
    session.push(inputs.approval(stale, { approved: false }))
    const second = session.start()
    session.callTool(second, 'call-1', { approval: 'ap-2' })
    const decision = session.push(
      inputs.approval({ ...stale, approvalId: 'ap-2' }, { approved: true }),
    )
    expect(decision).toMatchObject({ outcome: 'rejected', reason: 'stale-approval' })
    expect(session.state.pendingApprovals).toEqual([
      expect.objectContaining({ approvalId: 'ap-2', generationId: second }),
    ])
  })

  it('Given a pending approval, When it is approved, Then the approval part is answered and the tool becomes runnable; a denial records the denied result', () => {
    const session = new FakeSession()
    session.push(inputs.message(userMessage('m1')))
    const generation = session.start()
    session.callTool(generation, 'call-1', { approval: 'ap-1' })
    session.callTool(generation, 'call-2', { approval: 'ap-2' })
    session.complete(generation)
    const [one, two] = session.state.pendingApprovals as [PendingApproval, PendingApproval]
    session.push(inputs.approval(one, { approved: true }))
    session.push(inputs.approval(two, { approved: false, reason: 'Denied by the user' }))
    const parts = session.state.messages.at(-1)?.parts ?? []
    expect(parts).toContainEqual(
      expect.objectContaining({
        toolCallId: 'call-1',
        state: 'approval-responded',
        approval: expect.objectContaining({ approved: true }),
      }),
    )
    expect(parts).toContainEqual(
      expect.objectContaining({ toolCallId: 'call-2', state: 'output-denied' }),
    )
    expect(session.state.tools.map((tool) => [tool.toolCallId, tool.status])).toEqual([
      ['call-1', 'running'],
      ['call-2', 'denied'],
    ])
    session.toolResult(generation, 'call-1')
    expect(session.eventsOf('ai.generation.requested').at(-1)?.payload).toMatchObject({ step: 2 })
  })

  it('Given a pending input request, When respond() answers it, Then the value stays in state.pendingInputs and the turn continues', () => {
    const session = new FakeSession()
    session.push(inputs.message(userMessage('m1')))
    const generation = session.start()
    session.push(
      inputs.requestInput({ inputRequestId: 'ask-1', request: { question: 'Which city?' } }),
    )
    session.complete(generation)
    expect(session.eventsOf('ai.message.completed')).toEqual([])
    session.push(inputs.input({ inputRequestId: 'ask-1' }, 'Berlin'))
    expect(session.state.pendingInputs).toEqual([
      expect.objectContaining({ inputRequestId: 'ask-1', status: 'answered', value: 'Berlin' }),
    ])
    expect(session.eventsOf('ai.message.completed')).toHaveLength(1)
    expect(session.push(inputs.input({ inputRequestId: 'ask-1' }, 'Paris'))).toMatchObject({
      reason: 'stale-input',
    })
  })
})

describe('Input identity', () => {
  it('Given inputs.message(), seed() and steer(), Then "new-input commands use the message ID as their event ID"', () => {
    const msg = userMessage('msg-1')
    expect(inputs.message(msg)[0].id).toBe('msg-1')
    expect(inputs.seed(msg)[0]).toMatchObject({ id: 'msg-1', payload: { generate: false } })
    expect(inputs.steer(msg, { afterStepOf: null })[0].id).toBe('msg-1')
  })

  it('Given a hand-written command whose ID is not its message ID, Then the controller rejects it', () => {
    const session = new FakeSession()
    const [command] = inputs.message(userMessage('m1'))
    const decision = session.push([{ ...command, id: 'other-id' }])
    expect(decision).toMatchObject({ outcome: 'rejected', reason: 'invalid-command' })
    expect(session.state.messages).toEqual([])
  })

  it('Given the AI contract, When it validates hand-written new-input commands, Then "hand-written commands must too" use the message ID as their event ID', () => {
    const [command] = inputs.message(userMessage('m1'))
    const { id: _id, ...unnamed } = command
    expect(aiContract.validate(unnamed as typeof command).id).toBe('m1')
    expect(aiContract.validate(command).id).toBe('m1')
    expect(() => aiContract.validate({ ...command, id: 'other-id' })).toThrow(
      expect.objectContaining({ code: 'INVALID_EVENT', path: ['message', 'id'] }),
    )
    const [stop] = inputs.stop({ turnId: 't', frontier: 1 })
    expect(aiContract.validate(stop).id).toBeUndefined()
  })

  it('Given a caller ID in the reserved a2.ai: namespace, Then the builders refuse it', () => {
    expect(() => inputs.message(userMessage('a2.ai:mine'))).toThrow(ReservedIdCheck)
    expect(() => inputs.pause({ when: 'now', id: 'a2.ai:x' })).toThrow(ReservedIdCheck)
  })

  it('Given a malformed or forged command that reached the log, Then the controller rejects it as invalid-command and changes nothing', () => {
    const session = new FakeSession()
    session.push(inputs.message(userMessage('m1')))
    const before = session.state
    for (const payload of [
      { action: 'stop' },
      { action: 'message', message: { id: 'x' } },
      { action: 'launch' },
      null,
    ]) {
      const [stored] = session.append({ type: 'ai.control.requested', payload } as never)
      const decision = decide(session.state, stored as never)
      expect(decision).toMatchObject({ outcome: 'rejected', reason: 'invalid-command' })
      expect(decision.events.map((event) => event.type)).toEqual(['ai.control.decided'])
    }
    expect(session.state.messages).toEqual(before.messages)
    expect(session.state.active).toEqual(before.active)
  })

  it('Given a command check passed in (the server passes the zod schema), Then decide rejects what it refuses as invalid-command', () => {
    const session = new FakeSession()
    const [stored] = session.append(...inputs.message(userMessage('m1')))
    expect(decide(session.state, stored as never).outcome).toBe('applied')
    const checked: unknown[] = []
    const refusing = (payload: unknown): boolean => {
      checked.push(payload)
      return false
    }
    const decision = decide(session.state, stored as never, { isWellFormed: refusing })
    expect(decision).toMatchObject({ outcome: 'rejected', reason: 'invalid-command' })
    expect(checked).toEqual([stored?.payload])
  })

  it('Given a command decided twice against the same state, Then the decision is identical: every ID is derived from the command', () => {
    const session = new FakeSession()
    session.push(inputs.message(userMessage('m0')))
    const [stored] = session.append(...inputs.message(userMessage('m1')))
    const once = decide(session.state, stored as never)
    const twice = decide(session.state, stored as never)
    expect(twice).toEqual(once)
    expect(once.events.every((event) => event.id.startsWith('a2.ai:'))).toBe(true)
  })
})

describe('Who may push what', () => {
  it('Given browser pushes, Then user messages, responses, controls and queue operations are accepted, while requestInput(), toolResult() and non-user seeds are for trusted server appends', async () => {
    const { browserMayPush } = await import('../../../../shared/model/events/control-actions.ts')
    const allowed = [
      inputs.message(userMessage('m1')),
      inputs.steer(userMessage('m2'), { afterStepOf: null }),
      inputs.stop({ turnId: 't', frontier: 1 }),
      inputs.retry({ turnId: 't', retryId: 'r' }),
      inputs.interrupt({ toolCallId: 'c' }),
      inputs.queue.remove('m1'),
      inputs.input({ inputRequestId: 'i' }, 1),
    ]
    const refused = [
      inputs.requestInput({ inputRequestId: 'i', request: {} }),
      inputs.toolResult({ toolCallId: 'c', generationId: 'g', messageId: 'm', output: 1 }),
      inputs.seed({ id: 's', role: 'assistant', parts: [] }),
    ]
    expect(allowed.map(([command]) => browserMayPush(command.payload))).toEqual(
      allowed.map(() => true),
    )
    expect(refused.map(([command]) => browserMayPush(command.payload))).toEqual(
      refused.map(() => false),
    )
  })
})

describe('Input requests of a turn that ended', () => {
  it('Given a tool call whose turn was stopped, When its input request is decided after the Stop, Then it is rejected as stale-turn and no input waits on no turn (found by the simulator, seed 2262)', () => {
    const session = new FakeSession()
    session.push(inputs.message(userMessage('m1')))
    const generation = session.start()
    session.callTool(generation, 'call-1')
    const turnId = session.state.active?.turnId as string
    session.push(inputs.stop({ turnId, frontier: session.index }))
    expect(session.state.active).toBeNull()
    const decision = session.push(
      inputs.requestInput({
        inputRequestId: 'ask-1',
        toolCallId: 'call-1',
        request: { question: 'Which city?' },
      }),
    )
    expect(decision).toMatchObject({ outcome: 'rejected', reason: 'stale-turn' })
    expect(session.state.pendingInputs).toEqual([])
  })

  it('Given a tool call of the active turn, When it asks for input, Then the request joins that turn', () => {
    const session = new FakeSession()
    session.push(inputs.message(userMessage('m1')))
    const generation = session.start()
    session.callTool(generation, 'call-1')
    session.push(
      inputs.requestInput({ inputRequestId: 'ask-1', toolCallId: 'call-1', request: {} }),
    )
    expect(session.state.pendingInputs).toEqual([
      expect.objectContaining({ inputRequestId: 'ask-1', turnId: session.state.active?.turnId }),
    ])
  })
})
