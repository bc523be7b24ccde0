import { type Tool, tool } from 'ai'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import {
  type Agent,
  agent,
  type Dispatcher,
  localVersions,
  type VersionPolicy,
  type WakeUp,
} from '../../../shared/agent/index.ts'
import { inputs } from '../../../shared/ai.ts'
import { memoryEventStore } from '../../../shared/stores/memory/memory-event-store.ts'
import { scriptedModel, text, toolCalls } from '../../../shared/testing/scripted-model.ts'
import { textOf, track, until, userMessage } from '../../support/agent-log.ts'

// Two versions of an agent served side by side over one store, as a deploy's
// old and new code are while the old drains (issue 38, part 4): wake-ups
// reach the live version, whichever process sent them (on AWS: the queues
// feed the new functions), and work pinned to the other version goes there
// through its route.

const approval = {
  type: 'ai-sdk' as const,
  generation: { toolApproval: { closeTicket: 'user-approval' as const } },
}

interface Deploy {
  /** The version that started the turn (its model asks to close T-1, then answers). */
  v1: Agent
  v2: Agent
  /** Tickets each version's closeTicket closed. */
  ran: { v1: unknown[]; v2: unknown[] }
  warnings: string[]
  versions: ReturnType<typeof localVersions>
  deploy(): void
}

function deployment(options: {
  policy?: VersionPolicy
  pinnedForMs?: number
  v1Replies: string[]
  v2Replies: string[]
}): Deploy {
  const store = memoryEventStore()
  const versions = localVersions()
  let live: Agent | undefined
  const warnings: string[] = []
  const logger = { info() {}, warn: (line: string) => void warnings.push(line), error() {} }
  // The queue: a wake-up runs on the live version, held work looks again.
  const deliver = async (wakeUp: WakeUp): Promise<void> => {
    for (;;) {
      const outcome = await (live as Agent).runtime.run(wakeUp)
      if (outcome.kind === 'done') return
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
  }
  const dispatcher: Dispatcher = {
    wake: async (wakeUps) => {
      for (const wakeUp of wakeUps)
        setTimeout(() => void deliver(wakeUp).catch((error) => warnings.push(String(error))), 0)
    },
  }
  const ran = { v1: [] as unknown[], v2: [] as unknown[] }
  const closeTicket = (version: 'v1' | 'v2', ticketId: z.ZodType): Tool =>
    tool({
      inputSchema: z.object({ ticketId }),
      execute: async ({ ticketId: id }: { ticketId: unknown }) => {
        ran[version].push(id)
        return { closed: true }
      },
    })
  const make = (version: 'v1' | 'v2', replies: string[], ticketId: z.ZodType) =>
    track(
      agent({
        name: 'pinning',
        version,
        versions: {
          routes: versions.routes(version),
          ...(options.policy ? { policy: options.policy } : {}),
          ...(options.pinnedForMs === undefined ? {} : { pinnedForMs: options.pinnedForMs }),
        },
        store,
        dispatcher,
        logger,
        model: scriptedModel(
          version === 'v1'
            ? [
                toolCalls({
                  toolCallId: 'c1',
                  toolName: 'closeTicket',
                  input: { ticketId: 'T-1' },
                }),
                ...replies.map((reply) => text(reply)),
              ]
            : replies.map((reply) => text(reply)),
        ).model,
        tools: { closeTicket: closeTicket(version, ticketId) },
        harness: approval,
      }),
    )
  // Version 2's tickets are numbers: a call version 1 made does not fit its schema.
  const v1 = make('v1', options.v1Replies, z.string())
  const v2 = make('v2', options.v2Replies, z.number())
  versions.serve('v1', v1.runtime)
  versions.serve('v2', v2.runtime)
  live = v1
  const deploy = () => {
    live = v2
  }
  return { v1, v2, ran, warnings, versions, deploy }
}

/** v1 asks for an approval, m2 queues behind it; the deploy; the approval answered through v2. */
async function play(d: Deploy) {
  const session = d.v1.session('s')
  await session.append(...inputs.message(userMessage('m1', 'Close T-1')))
  await until(async () => (await session.state()).state.pendingApprovals.length === 1, 5_000)
  await session.append(...inputs.message(userMessage('m2', 'Two')))
  const { state } = await session.state()
  expect(state.active?.pin).toMatchObject({ version: 'v1', route: 'v1' })
  d.deploy()
  const pending = state.pendingApprovals[0]
  if (!pending) throw new Error('no pending approval')
  await d.v2.session('s').append(...inputs.approval(pending, { approved: true }))
  const settled = await until(async () => {
    const now = await d.v2.session('s').state()
    return (
      now.state.active === null &&
      now.state.inbox.items.length === 0 &&
      now.state.messages.length === 4 &&
      now
    )
  }, 10_000)
  const events = await d.v2.runtime.log.session('s').read()
  return {
    texts: settled.state.messages.map((message) => textOf(message)),
    stepVersions: events
      .filter((event) => event.type === 'ai.generation.started')
      .map((event) => (event.payload as { version?: string }).version),
    result: events.find((event) => event.type === 'ai.tool.result')?.payload as {
      outcome: string
      version?: string
      errorText?: string
    },
  }
}

describe('a turn pinned to the version that started it', () => {
  it('finishes on its version (the tool, the next step), and the next turn starts on the new one', async () => {
    const d = deployment({ v1Replies: ['Closed, on v1.'], v2Replies: ['Two, on v2.'] })
    const played = await play(d)
    expect(d.ran).toEqual({ v1: ['T-1'], v2: [] })
    expect(played.result).toMatchObject({ outcome: 'output', version: 'v1' })
    expect(played.stepVersions).toEqual(['v1', 'v1', 'v2'])
    expect(played.texts).toEqual(['Close T-1', 'Closed, on v1.', 'Two', 'Two, on v2.'])
    expect(d.warnings).toEqual([])
  })

  it("with policy 'pinned', the session's next turn stays on its first version too", async () => {
    const d = deployment({
      policy: 'pinned',
      v1Replies: ['Closed, on v1.', 'Two, still on v1.'],
      v2Replies: [],
    })
    const played = await play(d)
    expect(played.stepVersions).toEqual(['v1', 'v1', 'v1'])
    expect(played.texts.at(-1)).toBe('Two, still on v1.')
  })

  it("with policy 'latest', the new version runs the old turn's call, under the in-flight rules", async () => {
    const d = deployment({
      policy: 'latest',
      v1Replies: [],
      v2Replies: ['Could not close.', 'Two, on v2.'],
    })
    const played = await play(d)
    expect(d.ran).toEqual({ v1: [], v2: [] })
    expect(played.result.errorText).toMatch(
      /^The call's input no longer fits tool "closeTicket" as version v2/,
    )
    expect(played.stepVersions).toEqual(['v1', 'v2', 'v2'])
  })

  it('moves once the pin is past its bound, or its version no longer answers, saying so', async () => {
    const bound = deployment({
      pinnedForMs: 0,
      v1Replies: [],
      v2Replies: ['Could not close.', 'Two.'],
    })
    expect((await play(bound)).stepVersions).toEqual(['v1', 'v2', 'v2'])

    const gone = deployment({ v1Replies: [], v2Replies: ['Could not close.', 'Two.'] })
    const session = gone.v1.session('s')
    gone.versions.retire('v1')
    const played = await play(gone)
    expect(played.stepVersions).toEqual(['v1', 'v2', 'v2'])
    expect(gone.ran).toEqual({ v1: [], v2: [] })
    expect(gone.warnings[0]).toMatch(
      /^a2: tools work of session s is pinned to version v1, which no longer answers at v1: version v2 runs it$/,
    )
    expect((await session.state()).state.active).toBeNull()
  })
})

describe('the versions option', () => {
  it('refuses a policy or a bound that cannot work, with a TypeError naming it', () => {
    const model = scriptedModel([]).model
    expect(() =>
      agent({ name: 'v', model, versions: { policy: 'newest' as VersionPolicy } }),
    ).toThrow(/the policies are turn, pinned, latest/)
    expect(() => agent({ name: 'v', model, versions: { pinnedForMs: -1 } })).toThrow(
      /a pin's bound is 0 ms or more/,
    )
    expect(() => agent({ name: 'v', model, versions: { pinnedForMs: Number.NaN } })).toThrow(
      TypeError,
    )
  })
})
