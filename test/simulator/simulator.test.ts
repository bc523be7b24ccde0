import { describe, expect, it } from 'vitest'
import { agent } from '../../shared/agent/index.ts'
import { inputs } from '../../shared/ai.ts'
import type { StoredEvent } from '../../shared/log/event.ts'
import { initialAIState } from '../../shared/model/state/ai-state.ts'
import { memoryEventStore } from '../../shared/stores/memory/memory-event-store.ts'
import { scriptedModel, text } from '../../shared/testing/scripted-model.ts'
import {
  replayCommand,
  type SimulationOptions,
  simulate,
} from '../../shared/testing/simulator/index.ts'
import { brokenContent, brokenEffects } from '../../shared/testing/simulator/intent-oracle.ts'
import { brokenInvariants, type SessionFacts } from '../../shared/testing/simulator/invariants.ts'
import { seededRandom } from '../../shared/testing/simulator/random.ts'
import { processClock } from '../../shared/testing/simulator/sim-clock.ts'
import { simStore, storeCaller } from '../../shared/testing/simulator/sim-store.ts'
import { THROTTLING_ERRORS, throttlingError } from '../../shared/testing/simulator/store-faults.ts'
import { callOf, ToolLedger } from '../../shared/testing/simulator/workload-agent.ts'
import { World } from '../../shared/testing/simulator/world.ts'
import type { Timers } from '../../shared/timing/timers.ts'
import { userMessage } from '../support/agent-log.ts'

/**
 * Runs the simulator found that broke a runtime rule, each kept as the
 * options that replay it: they pass now. A seed names a run of one version
 * of the simulator: with their fixes undone, 112, 864 and 2262 no longer
 * fail on this one (checked before issue 33's combined workload too), and
 * their fixes are held by unit tests (durability.test.ts,
 * approvals-identity.test.ts); 6413 still fails with its fix undone.
 *
 * Seeds 279 and 977 (a step fenced out by a newer attempt ended its run,
 * its model stream did not) were kept here until this version: with that
 * fix undone, seeds 1 to 3,000 no longer find it, since a step whose write
 * fails now ends its model call itself (below); durability.test.ts holds it.
 */
const REGRESSIONS: { found: string; options: SimulationOptions }[] = [
  {
    found:
      "a step whose output the log refused stopped reading its model stream without ending it (the retry's call overlapped it)",
    options: { seed: 112 },
  },
  {
    found: 'the same, the stalled stream timing out after the retry began',
    options: { seed: 864 },
  },
  {
    found:
      "a tool's input request decided after its turn was stopped became a pending input of no turn, waiting forever",
    options: { seed: 2262 },
  },
  {
    found:
      'a model step dead-lettered after it had recorded a tool call failed its turn: the Retry asked the model again and the charge was made twice',
    options: { seed: 8519 },
  },
  {
    found:
      "the simulated user, started over after an erase, skipped an approval whose ID it had answered in the last life (a stalled server's first command started the new life with the same turn): the turn waited forever",
    options: {
      seed: 6413,
      faults: [
        'store.throttled',
        'store.transaction-conflict',
        'store.retried-after-commit',
        'sqs.send-failed',
        'sqs.delayed',
        'model.oversized',
        'clock.jump',
        'process.frozen',
      ],
    },
  },
]

describe('the simulator', () => {
  it('replays a seed exactly: the same trace, event for event', async () => {
    const first = await simulate({ seed: 7 })
    const again = await simulate({ seed: 7 })
    expect(again.trace.length).toBeGreaterThan(100)
    expect(again.trace).toEqual(first.trace)
    expect(again.digest).toBe(first.digest)
    expect((await simulate({ seed: 8 })).digest).not.toBe(first.digest)
  }, 60_000)

  it("keeps the seed's other choices when a replay narrows it (one session, no faults)", async () => {
    const full = await simulate({ seed: 11 })
    const narrowed = await simulate({ seed: 11, only: [0], faults: [] })
    expect(narrowed.options.processes).toEqual(full.options.processes)
    expect(narrowed.options.model).toEqual(full.options.model)
    expect(narrowed.figures.sessions).toBe(1)
    expect(narrowed.figures.faults).toEqual({})
    expect(replayCommand(narrowed)).toBe('npm run simulate -- --seed 11 --only 0 --faults none')
  })

  it.each(REGRESSIONS)('regression: $found', async ({ options }) => {
    const report = await simulate(options)
    expect(report.failures).toEqual([])
  })

  it("throws DynamoDB's own throttling exceptions at the store port", () => {
    const names = THROTTLING_ERRORS.map((which) => throttlingError(which).name)
    expect(names).toEqual([
      'ProvisionedThroughputExceededException',
      'ThrottlingException',
      'RequestLimitExceeded',
    ])
  })
})

describe("the processes' clocks", () => {
  it('the store judges a claim by the clock of the process calling it: one whose clock jumped ahead takes it early', async () => {
    const world = new World({ start: 0, maxSteps: 1_000, maxDurationMs: 3_600_000 })
    const [first, second] = [world.spawn(), world.spawn()]
    const clocks = new Map([first, second].map((owner) => [owner, processClock(world, owner)]))
    const store = memoryEventStore({
      now: () => clocks.get(storeCaller.getStore() ?? 0)?.now() ?? world.time,
    })
    const hooks = { committed() {}, returned() {} }
    const portOf = (owner: number) =>
      simStore(world, owner, store, undefined, seededRandom(1), hooks)
    const taken: number[] = []
    void (async () => {
      await portOf(first).claim('s0', 'gen', { ttlMs: 30_000 })
      clocks.get(second)?.jump(31_000)
      taken.push((await portOf(second).claim('s0', 'gen', { ttlMs: 30_000 })).attempt)
    })()
    await world.run()
    expect(taken).toEqual([2])
  })
})

describe('the clock seam', () => {
  it('claim renewals run on the timers agent() is given', async () => {
    const intervals: number[] = []
    const timers: Timers = {
      setTimeout: (callback, ms) => setTimeout(callback, ms),
      clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
      setInterval: (callback, ms) => {
        intervals.push(ms)
        return setInterval(callback, ms)
      },
      clearInterval: (handle) => clearInterval(handle as NodeJS.Timeout),
    }
    const a = agent({
      name: 'seam',
      model: scriptedModel([text('Hello.')]).model,
      store: memoryEventStore(),
      timers,
      claimTtlMs: 9_000,
    })
    await a.session('s').append(...inputs.message(userMessage('m1', 'Hi')))
    await a.runtime.idle()
    a.runtime.close()
    expect(intervals).toContain(3_000)
  })
})

describe('the invariants', () => {
  const event = (
    index: number,
    id: string,
    type = 'app.note',
    payload: unknown = {},
  ): StoredEvent => ({
    id,
    type,
    payload,
    sessionId: 's0',
    life: '',
    index,
    timestamp: 0,
  })
  const facts = (over: Partial<SessionFacts>): SessionFacts => ({
    sessionId: 's0',
    events: [],
    fresh: initialAIState(),
    processStates: [],
    returned: [],
    spans: [],
    tools: new ToolLedger(),
    user: {
      sessionId: 's0',
      approvals: [],
      problems: [],
      accepted: [],
      erased: false,
      abandoned: 0,
      lives: 1,
      unnamed: [],
      orders: [],
      sentNow: [],
    },
    now: 0,
    ...over,
  })

  it('hold for an empty, quiet session', () => {
    expect(brokenInvariants(facts({}))).toEqual([])
  })

  it('find a gap, a duplicated ID and a lost event', () => {
    const broken = brokenInvariants(
      facts({
        events: [event(1, 'a'), event(3, 'b'), event(3, 'a')],
        returned: [{ id: 'c', index: 2 }],
      }),
    )
    expect(broken).toEqual([
      'event b is at 3, not 2',
      'event ID a is in the log twice',
      'event c (#2), returned by an append, is lost',
    ])
  })

  it('find a command without its receipt, and a process whose state went its own way', () => {
    const other = { ...initialAIState(), starting: true }
    const broken = brokenInvariants(
      facts({
        events: [event(1, 'cmd', 'ai.control.requested', { action: 'resume' })],
        processStates: [{ owner: 3, state: other }],
      }),
    )
    expect(broken).toContain('command cmd has 0 receipts')
    expect(broken).toContain("process p3's state differs from a fold of the log from scratch")
  })

  it("find overlapping model calls of one session, and a 'report' tool run twice", () => {
    const tools = new ToolLedger()
    tools.runs.set('runCommand\u0000s0\u0000called-1', 2)
    tools.keys.set('runCommand\u0000s0\u0000called-1', new Set(['k1']))
    const broken = brokenInvariants(
      facts({
        spans: [
          { sessionId: 's0', owner: 1, start: 1, end: 3, how: 'done', produced: [] },
          { sessionId: 's0', owner: 2, start: 2, end: 4, how: 'done', produced: [] },
        ],
        tools,
      }),
    )
    expect(broken).toEqual([
      "runCommand (toolRecovery: 'report') ran 2 times for call called-1",
      "model calls overlapped: p1's (done) and p2's",
    ])
  })

  it('find work that loops: a model step attempted again and again', () => {
    const events = Array.from({ length: 14 }, (_, n) =>
      event(n + 1, `started-${n}`, 'ai.generation.started', { requestId: 'r1', attempt: n + 1 }),
    )
    expect(brokenInvariants(facts({ events }))).toContain('model step r1 was attempted 14 times')
  })

  it('find an input request left pending, and an app event its handler never handled', () => {
    const fresh = {
      ...initialAIState(),
      pendingInputs: [
        { inputRequestId: 'ask-1', turnId: null, request: {}, status: 'pending' as const },
      ],
    }
    const tools = new ToolLedger()
    // Keyed by the life the event is of (here '', a log from before lives).
    tools.handled.set('s0\u0000order-2\u0000', new Set(['k2']))
    const broken = brokenInvariants(
      facts({
        fresh,
        events: [event(1, 'order-1', 'sim.order.placed'), event(2, 'order-2', 'sim.order.placed')],
        tools,
      }),
    )
    expect(broken).toEqual([
      'an input request is still pending',
      'the handler of order-1 never ran',
      'the handler of order-2 never shipped its order',
    ])
  })

  it("find effects per intent: a charge whose key another call used first, and one turn's charge done twice", () => {
    const called = (index: number, gen: string, turnId: string) =>
      event(index, `called-${gen}`, 'ai.tool.called', {
        toolCallId: 'call_0',
        toolName: 'charge',
        generationId: gen,
        turnId,
      })
    const output = (index: number, gen: string) =>
      event(index, `result-${gen}`, 'ai.tool.result', {
        toolCallId: 'call_0',
        generationId: gen,
        outcome: 'output',
      })
    const tools = new ToolLedger()
    const run = (gen: string, key: string) => {
      const call = callOf('charge', 's0', `called-${gen}`, '')
      tools.keys.set(call, new Set([key]))
      tools.runs.set(call, 1)
      tools.perform('payments', 's0', key, call)
    }
    // Turn 1's call, then turn 2's under the same key (a key of the call ID
    // alone: call_0 is every step's): the service deduplicates turn 2's away.
    run('g1', 'k-call_0')
    run('g2', 'k-call_0')
    // Turn 3 asked again under a new call (a rerun step): two charges.
    run('g3', 'k3')
    run('g4', 'k4')
    const events = [
      called(1, 'g1', 't1'),
      output(2, 'g1'),
      called(3, 'g2', 't2'),
      output(4, 'g2'),
      called(5, 'g3', 't3'),
      output(6, 'g3'),
      called(7, 'g4', 't3'),
      output(8, 'g4'),
    ]
    expect(brokenEffects({ sessionId: 's0', events, tools })).toEqual([
      "charge call called-g2 has its output recorded, but its effect was never performed: its key was charge call called-g1's, whose payments effect it deduplicated to",
      'turn t3: payments performed 2 times (calls called-g3, called-g4) for the one the model asked for',
    ])
  })

  it('find content no model call produced: a step whose progress lost a chunk', () => {
    const progress = (index: number, delta: string) =>
      event(index, `progress-${index}`, 'ai.generation.progress', {
        generationId: 'g1',
        chunks: [{ type: 'text-delta', id: 't', delta }],
      })
    const completed = event(4, 'completed', 'ai.generation.completed', {
      generationId: 'g1',
      outcome: 'success',
    })
    const spans = [
      {
        sessionId: 's0',
        owner: 1,
        start: 1,
        end: 2,
        produced: [{ text: 'Hello, world.', toolCalls: [] }],
      },
    ]
    const whole = [progress(1, 'Hello'), progress(2, ', '), progress(3, 'world.'), completed]
    expect(brokenContent('s0', whole, spans)).toEqual([])
    const lost = [progress(1, 'Hello'), progress(3, 'world.'), completed]
    expect(brokenContent('s0', lost, spans)).toEqual([
      'model step g1 recorded "Helloworld.", which no model call produced',
    ])
  })

  it("find a browser that applied an event twice, lost one, or left behind the log's head", () => {
    const log = [event(1, 'a'), event(2, 'b'), event(3, 'c')]
    const browser = (applied: StoredEvent[], problems: string[] = []) => ({
      sessionId: 's0',
      applied,
      headAtClose: 3,
      problems,
      drops: 1,
      reloads: 0,
    })
    const fold = (events: readonly StoredEvent[]) => events.map((e) => e.id)
    expect(brokenInvariants(facts({ events: log, browser: browser(log), fold }))).toEqual([])
    expect(
      brokenInvariants(
        facts({
          events: log,
          browser: browser([event(1, 'a'), event(3, 'c')], ['the browser got #3 (c) after #1']),
          fold,
        }),
      ),
    ).toEqual([
      'the browser got #3 (c) after #1',
      'the browser applied 2 events, the log had 3 when it left',
      "the browser's event #3 (c) is not the log's",
      "the browser's state differs from the server's fold of the log it read",
    ])
  })

  it('find an erased session brought back', () => {
    const user = {
      sessionId: 's0',
      approvals: [],
      problems: [],
      accepted: [],
      erased: true,
      abandoned: 0,
      lives: 1,
      unnamed: [],
      orders: [],
      sentNow: [],
    }
    expect(
      brokenInvariants(facts({ user, events: [event(1, 'x', 'ai.model.metadata.resolved')] })),
    ).toEqual(['erased, yet its log has 1 events (ai.model.metadata.resolved first)'])
  })
})
