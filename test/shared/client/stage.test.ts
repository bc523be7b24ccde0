import { describe, expect, it } from 'vitest'
import {
  type ControlCommandInput,
  inputs,
  optimisticAIState,
  type PendingCommand,
} from '../../../shared/ai.ts'
import { createAgentClient } from '../../../shared/client/index.ts'
import { stageOf } from '../../../shared/client/session-view.ts'
import { decide } from '../../../shared/model/controller/decide.ts'
import { attemptOpening, stepToServe } from '../../../shared/model/controller/generation-attempt.ts'
import { text } from '../../../shared/testing/scripted-model.ts'
import { FakeSession, userMessage } from '../../support/fake-session.ts'
import { servedAgent, textOf, tracked, until } from '../../support/served-agent.ts'

// The wait stage of states folded from real logs (FakeSession: commands,
// the controller's rounds, the generation lane's facts), and of a client's
// view over them with commands of its own not yet confirmed.

let pushed = 0

/** A command this client pushed, as its pending commands hold it. */
const pending = ([event]: ControlCommandInput[]): PendingCommand => {
  if (!event) throw new Error('no command')
  return { ...event, id: event.id ?? `pushed-${++pushed}` } as PendingCommand
}

/** The stage a client's snapshot shows: its view over confirmed state and its own commands. */
function shown(session: FakeSession, commands: PendingCommand[]) {
  const view = optimisticAIState(session.state, commands)
  const unconfirmed = commands
    .filter((command) => !Object.hasOwn(session.state.requests, command.id))
    .map((command) => command.payload)
  return stageOf(view, { confirmed: session.state, unconfirmed })
}

/** A session whose turn's first model step runs (attempt 1) and has written `text`. */
function streaming(text?: string): { session: FakeSession; generationId: string } {
  const session = new FakeSession()
  session.push(inputs.message(userMessage('m1')))
  const generationId = session.start()
  if (text !== undefined) session.text(generationId, text)
  return { session, generationId }
}

/** The generation lane taking over the running attempt (its worker vanished): attempt 2. */
function takeOver(session: FakeSession, generationId: string): void {
  const serve = stepToServe(session.state)
  if (serve?.replaces === undefined) throw new Error('no running attempt to take over')
  session.fact(
    ...attemptOpening(session.state, {
      sessionId: 'fake',
      serve,
      generationId,
      attempt: 2,
      requestMetadata: false,
    }),
  )
}

describe('stageOf', () => {
  it('is null for an idle session and for a finished turn', () => {
    const session = new FakeSession()
    expect(stageOf(session.state)).toBeNull()
    session.push(inputs.message(userMessage('m1')))
    session.respond('Hello!')
    expect(session.state.active).toBeNull()
    expect(stageOf(session.state)).toBeNull()
  })

  it("is 'sending' while a send of this client is not back on the stream, where the view alone says 'starting'", () => {
    const session = new FakeSession()
    const send = pending(inputs.message(userMessage('m1')))
    expect(shown(session, [send])).toBe('sending')
    // The optimistic view previews the send admitted: read as confirmed, it is starting.
    expect(stageOf(optimisticAIState(session.state, [send]))).toBe('starting')
    // A passive message asks for no response; a Pause neither.
    expect(shown(session, [pending(inputs.message(userMessage('p1'), { generate: false }))])).toBe(
      null,
    )
    expect(shown(session, [pending(inputs.pause({ when: 'after-turn' }))])).toBeNull()
  })

  it("is 'queued' while a send is in the log and undecided, then 'starting' once admitted", () => {
    const session = new FakeSession()
    const [command] = inputs.message(userMessage('m1'))
    if (!command) throw new Error('no command')
    // Appended, and the controller has not run: the command waits in state.requests.
    const [stored] = session.append(command)
    expect(Object.keys(session.state.requests)).toEqual([stored?.id])
    expect(stageOf(session.state)).toBe('queued')
    // The client's own pending send, once the stream delivered it, is queued too.
    expect(shown(session, [{ ...command, id: stored?.id } as PendingCommand])).toBe('queued')
    session.settle()
    expect(session.state.requests).toEqual({})
    expect(session.state.activeRequestId).not.toBeNull()
    expect(stageOf(session.state)).toBe('starting')
  })

  it("is 'queued' for a message in the inbox behind a turn that streams, and 'sending' before that", () => {
    const { session } = streaming('Working on it')
    expect(stageOf(session.state)).toBeNull()
    const next = pending(inputs.message(userMessage('m2')))
    expect(shown(session, [next])).toBe('sending')
    session.push(inputs.message(userMessage('m2')))
    expect(session.inboxIds()).toEqual(['m2'])
    expect(stageOf(session.state)).toBe('queued')
    // A passive input in the inbox asks for no turn of its own.
    const passive = streaming('Working on it').session
    passive.push(inputs.message(userMessage('p1'), { generate: false }))
    expect(passive.inboxIds()).toEqual(['p1'])
    expect(stageOf(passive.state)).toBeNull()
  })

  it("is 'starting' for a turn admitted whose first step is not requested yet", () => {
    const session = new FakeSession()
    const [command] = inputs.message(userMessage('m1'))
    if (!command) throw new Error('no command')
    const [stored] = session.append(command)
    if (!stored) throw new Error('not stored')
    // The decision's append up to its request of the step: a prefix of the
    // log, as a stream may deliver it.
    const decision = decide(session.state, { id: stored.id, payload: command.payload }).events
    const request = decision.findIndex((event) => event.type === 'ai.generation.requested')
    expect(request).toBeGreaterThan(0)
    session.append(...decision.slice(0, request))
    expect(session.state.active).toMatchObject({ phase: 'starting', generation: null })
    expect(stageOf(session.state)).toBe('starting')
  })

  it("is 'starting' from admission until an attempt starts the step, for the next step after tools too", () => {
    const session = new FakeSession()
    session.push(inputs.message(userMessage('m1')))
    expect(session.state.active?.phase).toBe('starting')
    expect(stageOf(session.state)).toBe('starting')
    const first = session.start()
    // The model is at work (the indicator says thinking): nothing waits on the pipeline.
    expect(stageOf(session.state)).toBeNull()
    session.callTool(first, 'call-1')
    session.complete(first)
    expect(stageOf(session.state)).toBeNull() // the tool runs
    session.toolResult(first, 'call-1')
    expect(session.state.active?.phase).toBe('waiting')
    expect(session.state.activeRequestId).not.toBeNull()
    expect(stageOf(session.state)).toBe('starting')
    session.start()
    expect(stageOf(session.state)).toBeNull()
  })

  it("is 'recovering' while an attempt that took over a vanished one has written nothing, and null once it writes", () => {
    const { session, generationId } = streaming('The first half')
    expect(stageOf(session.state)).toBeNull()
    takeOver(session, 'gen-takeover')
    expect(session.state.activeGeneration).toMatchObject({
      generationId: 'gen-takeover',
      attempt: 2,
      status: 'running',
    })
    expect(stageOf(session.state)).toBe('recovering')
    // The vanished attempt's late progress changes nothing.
    session.text(generationId, ' and more')
    expect(stageOf(session.state)).toBe('recovering')
    session.text('gen-takeover', 'Again, from the top')
    expect(stageOf(session.state)).toBeNull()
  })

  it("is 'recovering' for a superseded attempt whose replacement has not started, and not for a first attempt yet to write", () => {
    const { session, generationId } = streaming()
    // A first attempt that has written nothing is the model thinking, not a recovery.
    expect(session.state.activeGeneration?.attempt).toBe(1)
    expect(stageOf(session.state)).toBeNull()
    const requestId = session.state.activeGeneration?.requestId as string
    session.fact({
      id: 'superseded-1',
      type: 'ai.generation.superseded',
      payload: { generationId, requestId, reason: 'attempt 2 took over' },
    })
    expect(session.state.activeRequestId).toBe(requestId)
    expect(stageOf(session.state)).toBe('recovering')
  })

  it("is null for a failed turn, 'sending' then 'starting' for its retry", () => {
    const { session, generationId } = streaming('half an answer')
    const turnId = session.state.active?.turnId as string
    session.complete(generationId, 'failed')
    expect(session.state.active?.phase).toBe('failed')
    expect(stageOf(session.state)).toBeNull()
    const retry = inputs.retry({ turnId, retryId: 'retry-1' })
    expect(shown(session, [pending(retry)])).toBe('sending')
    session.push(retry)
    expect(stageOf(session.state)).toBe('starting')
  })

  it('is null once a pending Stop or Pause now ended the wait on screen, and for a closed session', () => {
    const session = new FakeSession()
    session.push(inputs.message(userMessage('m1')))
    const turnId = session.state.active?.turnId as string
    expect(stageOf(session.state)).toBe('starting')
    expect(shown(session, [pending(inputs.stop({ turnId, frontier: session.index }))])).toBeNull()
    expect(shown(session, [pending(inputs.pause({ when: 'now' }))])).toBeNull()
    session.fact({ id: 'closed', type: 'ai.session.closed', payload: {} })
    expect(session.state.closed).toBe(true)
    expect(stageOf(new FakeSession().state)).toBeNull()
    expect(shown(session, [pending(inputs.message(userMessage('m2')))])).toBeNull()
  })
})

describe('the snapshot’s stage', () => {
  it("goes from 'sending' to null for an idle send, and says 'queued' for a send behind a turn that streams", async () => {
    const served = await servedAgent([
      { hang: true, parts: text('Working on it', { chunks: 2 }).slice(0, 3) },
    ])
    const client = tracked(createAgentClient({ api: served.api }))
    const session = client.session('s1')
    const seen: (string | null)[] = [null]
    session.subscribe(() => {
      const { stage } = session.getSnapshot()
      if (seen.at(-1) !== stage) seen.push(stage)
    })
    expect(session.getSnapshot().stage).toBeNull()
    const first = session.sendMessage('First')
    expect(session.getSnapshot()).toMatchObject({ stage: 'sending', indicator: 'starting' })
    await first.confirmed
    await until(() => textOf(session.getSnapshot().messages[1]).length > 0)
    expect(session.getSnapshot().stage).toBeNull()
    // Each stage it went through came after the ones before it in the pipeline.
    const order = ['sending', 'queued', 'starting', null]
    const went = seen.slice(1)
    expect(went[0]).toBe('sending')
    expect(went.at(-1)).toBeNull()
    expect(went.map((stage) => order.indexOf(stage))).toEqual(
      went.map((stage) => order.indexOf(stage)).sort((a, b) => a - b),
    )

    const second = session.sendMessage('Second')
    expect(session.getSnapshot().stage).toBe('sending')
    await second.confirmed
    const queued = await until(() => {
      const snapshot = session.getSnapshot()
      return snapshot.state.inbox.items.length === 1 && snapshot
    })
    expect(queued).toMatchObject({ stage: 'queued', status: 'streaming' })
  })
})
