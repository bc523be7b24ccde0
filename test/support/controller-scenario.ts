import fc from 'fast-check'
import {
  type AIState,
  type ControlCommandInput,
  inputs,
  type PendingApproval,
} from '../../shared/ai.ts'
import type { StoredEvent } from '../../shared/log/event.ts'
import { dueGeneration } from '../../shared/model/controller/due-work.ts'
import { FakeSession, userMessage } from './fake-session.ts'

// Random sessions: each abstract step picks a command a client could push or
// a fact the runtime could record, resolved against the current state (an
// index picks among what exists), so every generated sequence is one a real
// session could produce, including stale and rejected commands.

export type Step =
  | { kind: 'send'; generate: boolean }
  | { kind: 'steer' | 'edit' | 'remove' | 'sendNow' | 'move'; pick: number; stale: boolean }
  | { kind: 'stop'; back: number; stale: boolean }
  | { kind: 'pause'; now: boolean }
  | {
      kind:
        | 'resume'
        | 'retry'
        | 'start'
        | 'text'
        | 'tool'
        | 'toolResult'
        | 'complete'
        | 'fail'
        | 'approve'
        | 'deny'
        | 'providerTool'
    }
  | { kind: 'approvalTool' }

const runtimeFact = fc.constantFrom(
  'start' as const,
  'text' as const,
  'complete' as const,
  'tool' as const,
  'toolResult' as const,
  'fail' as const,
  'retry' as const,
  'approve' as const,
  'deny' as const,
  'providerTool' as const,
)

const stepArbitrary: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({ kind: fc.constant('send' as const), generate: fc.boolean() }),
  },
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constantFrom(
        'steer' as const,
        'edit' as const,
        'remove' as const,
        'sendNow' as const,
        'move' as const,
      ),
      pick: fc.nat(5),
      stale: fc.boolean(),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('stop' as const),
      back: fc.nat(6),
      stale: fc.boolean(),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('pause' as const), now: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('resume' as const) }) },
  { weight: 25, arbitrary: fc.record({ kind: runtimeFact }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('approvalTool' as const) }) },
)

export const scenarioArbitrary = fc.array(stepArbitrary, {
  minLength: 5,
  maxLength: 40,
  size: 'medium',
})

export interface StepContext {
  session: FakeSession
  /** Turn IDs this client has seen, newest last. */
  seenTurns: string[]
  counter: number
  /** Tool calls per generation: IDs are numbered per step, as many providers do (`call_0`). */
  callsOf: Map<string, number>
}

const pickFrom = <T>(list: readonly T[], index: number): T | undefined =>
  list.length === 0 ? undefined : list[index % list.length]

/** The command a step pushes, if it is a command; `null` for runtime facts. */
function commandFor(step: Step, context: StepContext): ControlCommandInput[] | null {
  const state = context.session.state
  const activeTurn = state.active?.turnId ?? null
  const observed = (stale: boolean) =>
    stale ? (context.seenTurns.at(-2) ?? activeTurn) : activeTurn
  const items = state.inbox.items
  switch (step.kind) {
    case 'send':
      return inputs.message(userMessage(`u${++context.counter}`), { generate: step.generate })
    case 'steer':
      return inputs.steer(userMessage(`u${++context.counter}`), {
        afterStepOf: observed(step.stale),
      })
    case 'edit': {
      const item = pickFrom(items, step.pick) ?? pickFrom(state.messages, step.pick)
      if (!item) return null
      return inputs.queue.edit(userMessage(item.id, `edit ${++context.counter}`))
    }
    case 'remove': {
      const item = pickFrom(items, step.pick) ?? pickFrom(state.messages, step.pick)
      return item ? inputs.queue.remove(item.id) : null
    }
    case 'move': {
      const item = pickFrom(items, step.pick)
      const before = step.stale ? null : (pickFrom(items, step.pick + 1)?.id ?? null)
      return item ? inputs.queue.move({ inputId: item.id, beforeId: before }) : null
    }
    case 'sendNow': {
      const item = pickFrom(items, step.pick)
      return item ? inputs.queue.sendNow(item.id, { afterStepOf: observed(step.stale) }) : null
    }
    case 'stop': {
      const turnId = observed(step.stale)
      if (turnId === null) return null
      return inputs.stop({ turnId, frontier: Math.max(0, context.session.index - step.back) })
    }
    case 'pause':
      return inputs.pause({ when: step.now ? 'now' : 'after-turn' })
    case 'resume':
      return inputs.resume()
    case 'retry':
      return activeTurn
        ? inputs.retry({ turnId: activeTurn, retryId: `retry-${++context.counter}` })
        : null
    case 'approve':
    case 'deny': {
      const approval: PendingApproval | undefined = state.pendingApprovals[0]
      return approval ? inputs.approval(approval, { approved: step.kind === 'approve' }) : null
    }
    default:
      return null
  }
}

/** Runs a runtime fact, if the step is one and it is possible now. */
function runFact(step: Step, context: StepContext): void {
  const { session } = context
  const state: AIState = session.state
  const generation =
    state.activeGeneration?.status === 'running' ? state.activeGeneration.generationId : null
  switch (step.kind) {
    case 'start':
      if (dueGeneration(state)) session.start()
      return
    case 'text':
      if (generation) session.text(generation, `words ${++context.counter} `, `t${context.counter}`)
      return
    case 'tool':
    case 'approvalTool':
    case 'providerTool': {
      if (!generation) return
      const n = context.callsOf.get(generation) ?? 0
      context.callsOf.set(generation, n + 1)
      const id = `call_${n}`
      const seed = ++context.counter
      if (step.kind === 'providerTool') {
        session.callProviderTool(generation, id, {
          answered: seed % 3 === 0,
          deferred: seed % 3 === 1,
        })
      } else {
        session.callTool(
          generation,
          id,
          step.kind === 'approvalTool' ? { approval: `ap-${generation}-${id}` } : {},
        )
      }
      return
    }
    case 'toolResult': {
      const tool = state.tools.find(
        (candidate) => candidate.status === 'running' || candidate.status === 'cancelled',
      )
      if (tool) session.toolResult(tool.generationId, tool.toolCallId)
      return
    }
    case 'complete':
    case 'fail':
      if (generation) session.complete(generation, step.kind === 'fail' ? 'failed' : 'success')
      return
    default:
      return
  }
}

export interface Observed {
  before: AIState
  after: AIState
  appended: StoredEvent[]
  step: Step
  command: ControlCommandInput[] | null
}

/** Plays a scenario, calling `observe` after every step. */
export function play(
  steps: readonly Step[],
  observe: (observed: Observed, context: StepContext) => void,
): FakeSession {
  const context: StepContext = {
    session: new FakeSession({ maxSteps: 4 }),
    seenTurns: [],
    counter: 0,
    callsOf: new Map(),
  }
  for (const step of steps) {
    const before = context.session.state
    const from = context.session.log.length
    const command = commandFor(step, context)
    if (command) context.session.push(command)
    else runFact(step, context)
    const turn = context.session.state.active?.turnId
    if (turn && context.seenTurns.at(-1) !== turn) context.seenTurns.push(turn)
    observe(
      {
        before,
        after: context.session.state,
        appended: context.session.log.slice(from),
        step,
        command,
      },
      context,
    )
  }
  return context.session
}
