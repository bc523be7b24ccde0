import type { LanguageModelV4 } from '@ai-sdk/provider'
import type { ToolSet, UIMessage } from 'ai'
import { describe, expect, it } from 'vitest'
import type { Agent, AgentOptions } from '../../../shared/agent/index.ts'
import { inputs } from '../../../shared/ai.ts'
import type { PipelineAgent } from '../../../shared/aws/lambda/pipeline-agent.ts'
import type { EventStore } from '../../../shared/log/event-store.ts'
import type { AIState } from '../../../shared/model/state/ai-state.ts'
import { memoryEventStore } from '../../../shared/stores/memory/memory-event-store.ts'
import { brokenInvariants } from '../../../shared/testing/crash-points.ts'
import {
  CrashError,
  CrashPoints,
  crashingDispatcher,
  crashingModel,
  crashingScheduler,
  crashingStore,
  crashingTools,
} from '../../../shared/testing/crash-ports.ts'
import {
  type ConversationAction,
  type CrashRun,
  positionalModel,
  runConversation,
} from '../../../shared/testing/crash-run.ts'
import type { Step } from '../../../shared/testing/scripted-model.ts'
import { sleep } from '../../../shared/timing/sleep.ts'
import {
  agentDefinition,
  approvedCharge,
  effects,
  reportedCommand,
} from '../../support/crash-conversations.ts'
import { type BuildAgent, pipelineForSuite } from '../../support/pipeline.ts'

// Crash points through the local pipeline runner (functions/local/runner):
// the conversation runs as deployed, its wake-ups on the SQS queues over
// moto, and the Lambda container running the session's work dies at a crash
// point. Lanes run concurrently there, so a point's position changes from run
// to run: a run crashes at the first point with a given label instead. The
// dead container's invocations are killed in the runner (their messages are
// not deleted, their lease is not renewed) and every later call of it throws;
// a fresh container takes over what SQS redelivers once the lease runs out.
// The run is then checked as the harness checks its own (brokenInvariants).
// In `npm test`, two labels on the tool's path; with A2_CRASH_MATRIX=all,
// every label of both conversations.

const matrix = process.env.A2_CRASH_MATRIX === 'all'
/** A killed invocation's messages come back within a lease; its claims expire within a TTL. */
const LEASE = {
  seconds: 2,
  renewEverySeconds: 1,
  retry: { baseDelayMs: 1_000, maxDelayMs: 2_000 },
}
const CLAIM_TTL_MS = 1_000
/** Longer in the matrix, which runs for many minutes beside other work: slow is not stuck. */
const SETTLE_MS = matrix ? 60_000 : 20_000
const POLL_MS = 150

type Conversation = { model: Step[]; conversation: readonly ConversationAction[] }

/** The run under way: its session, script and containers. */
let current:
  | {
      sessionId: string
      steps: Step[]
      points: CrashPoints
      live: Agent
      dead: Agent[]
      appended: { id: string; index: number }[]
    }
  | undefined
let build: BuildAgent | undefined
let spare: Agent | undefined

/** A process's crash points that die at the first point named `label` (or never). */
class LabelledPoints extends CrashPoints {
  readonly crashLabel: string | undefined
  readonly onDeath: () => void

  constructor(crashLabel: string | undefined, onDeath: () => void) {
    super()
    this.crashLabel = crashLabel
    this.onDeath = onDeath
  }

  override point(label: string): Promise<void> | undefined {
    if (this.crashed || label !== this.crashLabel) return super.point(label)
    this.labels.push(label)
    this.crashed = new CrashError(this.labels.length, label)
    this.onDeath()
    throw this.crashed
  }
}

/** A Lambda container: the agent on the suite's resources with every port through `points`. */
function container(points: CrashPoints): Agent {
  if (!build) throw new Error('the pipeline is not running')
  const run = current
  return build(
    (store) => crashingStore(store, points, (_, ids) => run?.appended.push(...ids)),
    (options) => ({
      ...options,
      model: crashingModel(options.model as LanguageModelV4, points),
      tools: crashingTools(options.tools as ToolSet, points),
      ...(options.dispatcher ? { dispatcher: crashingDispatcher(options.dispatcher, points) } : {}),
      ...(options.scheduler ? { scheduler: crashingScheduler(options.scheduler, points) } : {}),
    }),
  ) as Agent
}

/** The model answers the run's script by position, as the harness's does. */
const model: LanguageModelV4 = {
  specificationVersion: 'v4',
  provider: 'crash-points',
  modelId: 'positional',
  supportedUrls: {},
  doGenerate: () => Promise.reject(new Error('the crash-point model only streams')),
  doStream: (options) => {
    if (!current) throw new Error('no run under way')
    return positionalModel(current.steps, store(), current.sessionId).doStream(options)
  },
}

const suite = pipelineForSuite(
  {
    ...agentDefinition,
    model,
    claimTtlMs: CLAIM_TTL_MS,
    // Each chunk is written as it comes, as in the harness.
    harness: {
      ...agentDefinition.harness,
      generation: {
        ...agentDefinition.harness.generation,
        progress: { windowMs: 0, maxWindowMs: 0, maxChunks: 1 },
      },
    },
  } as Omit<AgentOptions, 'store' | 'dispatcher' | 'scheduler'>,
  {
    lease: LEASE,
    maxReceiveCount: 5,
    // Every function runs in the current run's live container (the first
    // one until a run starts).
    serve: (builder) => {
      build = builder
      spare = builder()
      return new Proxy({} as PipelineAgent, {
        get: (_, property) => Reflect.get(current?.live ?? (spare as Agent), property),
      })
    },
  },
)

const store = (): EventStore => suite().agent.options.store as EventStore

/**
 * Nothing left to do until the user acts: every command decided, the inbox
 * empty, and the turn ended or waiting for an approval.
 */
function waiting(state: AIState): boolean {
  if (Object.keys(state.requests).length > 0 || state.inbox.items.length > 0) return false
  if (state.active === null) return true
  return (
    state.pendingApprovals.length > 0 &&
    state.activeGeneration?.status !== 'running' &&
    !state.tools.some((tool) => tool.status === 'running' || tool.status === 'cancelled')
  )
}

let runs = 0
async function runInPipeline(
  conversation: Conversation,
  crashLabel?: string,
): Promise<CrashRun & { labels: string[] }> {
  const sessionId = `crash-pipeline-${++runs}`
  for (const ledger of effects) ledger.reset()
  const stuck: string[] = []
  const run = {
    sessionId,
    steps: conversation.model,
    appended: [] as { id: string; index: number }[],
    dead: [] as Agent[],
  } as NonNullable<typeof current>
  current = run
  run.points = new LabelledPoints(crashLabel, () => {
    // The process is gone: its invocations are killed, and the next ones
    // run in a fresh container that crashes nowhere.
    run.dead.push(run.live)
    run.live = container(new CrashPoints())
    suite().pipeline.kill((record) => record.body.includes(JSON.stringify(sessionId)))
  })
  run.live = container(run.points)
  const session = suite().agent.session(sessionId)
  // Through the API, as a client sends them (which also wakes the runner's
  // idle pollers at once).
  const post = (events: unknown[]) =>
    fetch(`${suite().pipeline.url}?sessionId=${sessionId}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ events }),
    })
  const send = async (events: unknown[]): Promise<void> => {
    let response = await post(events)
    // The container died serving the request: the client sends it again,
    // to the fresh one (the same event IDs: a replay if it was stored).
    if (!response.ok && run.points.crashed) response = await post(events)
    if (!response.ok)
      throw new Error(`the append failed: ${response.status} ${await response.text()}`)
  }
  // Polled gently: each look reads the session from the emulator, which
  // the pipeline is busy with.
  const settled = async (): Promise<AIState> => {
    const deadline = Date.now() + SETTLE_MS
    for (;;) {
      const { state } = await session.state()
      if (waiting(state)) return state
      if (Date.now() > deadline) {
        const tools = state.tools.map((tool) => `${tool.toolName} ${tool.status}`).join(', ')
        stuck.push(
          `not settled within ${SETTLE_MS / 1000} s: turn ${state.active?.phase ?? 'none'}, model step ${state.activeGeneration?.status ?? 'none'}, tools [${tools}], ${state.pendingApprovals.length} approvals pending`,
        )
        return state
      }
      await sleep(POLL_MS)
    }
  }
  for (const [position, action] of conversation.conversation.entries()) {
    const state = await settled()
    if ('user' in action) {
      const message: UIMessage = {
        id: `${sessionId}-m${position}`,
        role: 'user',
        parts: [{ type: 'text', text: action.user }],
      }
      await send(inputs.message(message))
    } else if ('approve' in action) {
      const pending = state.pendingApprovals[0]
      if (pending) {
        await send(
          inputs.approval(pending, {
            approved: action.approve,
            id: `${sessionId}-approval-${position}`,
          }),
        )
      }
    } else {
      throw new Error(`the pipeline's crash points drive no ${Object.keys(action)[0]} yet`)
    }
  }
  const state = await settled()
  const events = await store().read(sessionId)
  for (const a of [...run.dead, run.live]) a.runtime.close()
  return {
    labels: run.points.labels,
    crash: run.points.crashed,
    frozen: undefined,
    events,
    state,
    appended: run.appended,
    effects: Object.fromEntries(effects.map((ledger) => [ledger.name, [...ledger.performed]])),
    stuck,
  }
}

/**
 * The points a sample crashes at (about 7 s a run on moto): on the tool's
 * path, where an effect could repeat. After its durable step was recorded,
 * the retried call must skip the charge; after the tool returned and before
 * its result, the charge must go through once by its idempotency key. After
 * a step recorded its call and woke the tool's own function, the takeover
 * must end the step there, not ask the model again (the tool would run
 * twice: it did, before the takeover rule's finish-replaced-step).
 */
const SAMPLES: Record<string, string[]> = {
  'a charge that needs approval': [
    'after store.append(step.completed)',
    'chargeCard.execute return',
  ],
  "a 'report' tool": ['after wake(tools)'],
}

describe('crash points through the local pipeline runner', () => {
  const conversations: Record<string, Conversation> = {
    'a charge that needs approval': approvedCharge,
    "a 'report' tool": reportedCommand,
  }
  for (const [name, conversation] of Object.entries(conversations)) {
    it(
      `Given ${name} on the deployed pipeline, When the container running a lane dies at a crash point, Then SQS redelivers its wake-up and a fresh container finishes with the uncrashed transcript, every effect once and no event lost`,
      async () => {
        // The uncrashed reference: the harness's own run on the memory store
        // (under a second). The matrix runs the pipeline uncrashed too, to
        // list its points, and holds it to the same reference.
        const baseline = await runConversation({
          agent: agentDefinition,
          ...conversation,
          store: (now) => memoryEventStore({ now }),
          effects,
          sessionId: 'crash-reference',
        })
        expect(baseline.stuck).toEqual([])
        expect(baseline.state.active).toBeNull()
        const failures: string[] = []
        let labels = SAMPLES[name] ?? []
        if (matrix) {
          const uncrashed = await runInPipeline(conversation)
          labels = [...new Set(uncrashed.labels)]
          for (const broken of brokenInvariants(baseline, uncrashed)) {
            failures.push(`no crash: ${broken.invariant}: ${broken.detail}`)
          }
        }
        for (const [position, label] of labels.entries()) {
          const crashed = await runInPipeline(conversation, label)
          const broken = brokenInvariants(baseline, crashed)
          for (const { invariant, detail } of broken) {
            failures.push(`${label}: ${invariant}: ${detail}`)
          }
          if (matrix) {
            // Lanes interleave differently from run to run: a point the
            // uncrashed run reached may not come up; the run is checked anyway.
            process.stderr.write(
              `crash matrix (pipeline): ${name}: run ${position + 1} of ${labels.length} (${label})${crashed.crash ? '' : ', not reached'}: ${broken.map(({ invariant }) => invariant).join('; ') || 'safe'}\n`,
            )
          } else {
            expect(crashed.crash?.message, `the run reached "${label}"`).toContain(label)
          }
        }
        console.info(
          `${name} (pipeline): ${labels.length} crash points, ${labels.length + (matrix ? 1 : 0)} runs, ${failures.length} broken invariants`,
        )
        expect(failures).toEqual([])
        if (!matrix) {
          // Each sampled point is in a lane: its invocation was killed, not finished.
          const kills = Object.values(suite().pipeline.stats.kills)
          expect(kills.reduce((sum, count) => sum + count, 0)).toBeGreaterThanOrEqual(labels.length)
        }
      },
      matrix ? 3_600_000 : 120_000,
    )
  }
})
