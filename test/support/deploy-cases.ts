import { type Tool, tool } from 'ai'
import { expect } from 'vitest'
import { z } from 'zod'
import { agent } from '../../shared/agent/index.ts'
import { inputs } from '../../shared/ai.ts'
import type { EventStore } from '../../shared/log/event-store.ts'
import { scriptedModel, text, toolCalls } from '../../shared/testing/scripted-model.ts'
import { textOf, track, until, userMessage } from './agent-log.ts'

// A deploy between a model's tool call and its run (issue 38, rule 3): the
// old version's turn waits on an approval with two messages queued behind
// it; a process of the new version answers it. Whatever the new code did to
// the tool, nothing is stuck, no tool runs on input its schema refuses, the
// model is told why, and the queue keeps its order.

const quiet = { info() {}, warn() {}, error() {} }
const approval = {
  type: 'ai-sdk' as const,
  generation: { toolApproval: { closeTicket: 'user-approval' as const } },
}

/** The new version's tool: as before, gone, or with an input schema the old call's input does not fit. */
export type DeployChange = 'unchanged' | 'removed' | 'schema-changed' | 'field-added'

export interface DeployOutcome {
  /** The call's recorded result. */
  result: { outcome?: string; errorText?: string; version?: string }
  /** The tickets the new version's tool closed. */
  ran: unknown[]
  /** Which version started each model step, in log order. */
  stepVersions: (string | undefined)[]
  /** The conversation's text, in order. */
  texts: string[]
}

/** Runs the deploy: version v1 asks for the approval, version v2 (changed as given) answers it. */
export async function deployDuringApproval(
  store: () => EventStore,
  sessionId: string,
  change: DeployChange,
): Promise<DeployOutcome> {
  const before = track(
    agent({
      name: 'deploys',
      version: 'v1',
      store: store(),
      logger: quiet,
      model: scriptedModel([
        toolCalls({ toolCallId: 'c1', toolName: 'closeTicket', input: { ticketId: 'T-1' } }),
      ]).model,
      tools: {
        closeTicket: tool({
          inputSchema: z.object({ ticketId: z.string() }),
          execute: async () => ({ closed: true }),
        }),
      },
      harness: approval,
    }),
  )
  const session = before.session(sessionId)
  await session.append(...inputs.message(userMessage(`${sessionId}-m1`, 'Close T-1')))
  await before.runtime.idle()
  await session.append(...inputs.message(userMessage(`${sessionId}-m2`, 'Two')))
  await session.append(...inputs.message(userMessage(`${sessionId}-m3`, 'Three')))
  await before.runtime.idle()
  const waiting = (await session.state()).state
  expect(waiting.pendingApprovals).toHaveLength(1)
  expect(waiting.inbox.items).toHaveLength(2)
  expect(waiting.active?.version).toBe('v1')

  const ran: unknown[] = []
  const tools: Record<string, Tool> =
    change === 'removed'
      ? {}
      : {
          closeTicket: tool({
            inputSchema:
              change === 'unchanged'
                ? z.object({ ticketId: z.string() })
                : change === 'field-added'
                  ? z.object({ ticketId: z.string(), reason: z.string().default('resolved') })
                  : z.object({ ticketId: z.number().int() }),
            execute: async ({ ticketId, reason }: { ticketId: unknown; reason?: string }) => {
              ran.push(reason === undefined ? ticketId : `${ticketId} (${reason})`)
              return { closed: true }
            },
          }),
        }
  const after = track(
    agent({
      name: 'deploys',
      version: 'v2',
      store: store(),
      logger: quiet,
      model: scriptedModel([text('Step two.'), text('Answer two.'), text('Answer three.')]).model,
      tools,
      harness: approval,
    }),
  )
  const pending = waiting.pendingApprovals[0]
  if (!pending) throw new Error('no pending approval')
  await after.session(sessionId).append(...inputs.approval(pending, { approved: true }))
  const { state } = await until(async () => {
    await after.runtime.idle()
    const now = await after.session(sessionId).state()
    return (
      now.state.active === null &&
      now.state.inbox.items.length === 0 &&
      now.state.messages.length === 6 &&
      now
    )
  }, 20_000)
  const events = await after.runtime.log.session(sessionId).read()
  const result = events.find((event) => event.type === 'ai.tool.result')
    ?.payload as DeployOutcome['result']
  return {
    result,
    ran,
    stepVersions: events
      .filter((event) => event.type === 'ai.generation.started')
      .map((event) => (event.payload as { version?: string }).version),
    texts: state.messages.map((message) => textOf(message)),
  }
}

/** What every case shares: the turn went on under v2, and the queue kept its order. */
export function expectTheTurnWentOn(outcome: DeployOutcome): void {
  expect(outcome.stepVersions).toEqual(['v1', 'v2', 'v2', 'v2'])
  expect(outcome.texts).toEqual([
    'Close T-1',
    'Step two.',
    'Two',
    'Answer two.',
    'Three',
    'Answer three.',
  ])
}
