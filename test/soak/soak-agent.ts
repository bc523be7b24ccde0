import { tool } from 'ai'
import { z } from 'zod'
import type { AgentOptions } from '../../shared/agent/index.ts'
import { handlerContext, inputs } from '../../shared/ai.ts'
import { sleep } from '../../shared/timing/sleep.ts'
import { instructionsFor, SOAK_MODEL } from './model.ts'

// The soak's agent, as users configure one: a Gateway model ID, the default
// generator, compaction on by default, tools that ask for approval, set
// timers or must not run twice.

/** How often each tool ran, per session and logical call (its idempotency key). */
export interface ToolRuns {
  /** `tool -> session -> idempotency key -> runs` */
  runs: Map<string, Map<string, Map<string, number>>>
}

export function toolRuns(): ToolRuns {
  return { runs: new Map() }
}

function count(ledger: ToolRuns, toolName: string): void {
  const ctx = handlerContext()
  const bySession = ledger.runs.get(toolName) ?? new Map<string, Map<string, number>>()
  ledger.runs.set(toolName, bySession)
  const byKey = bySession.get(ctx.session.id) ?? new Map<string, number>()
  bySession.set(ctx.session.id, byKey)
  byKey.set(ctx.idempotencyKey, (byKey.get(ctx.idempotencyKey) ?? 0) + 1)
}

/** The agent's options, without its store and dispatch (the target adds those). */
export function soakAgentOptions(ledger: ToolRuns) {
  const tools = {
    lookup: tool({
      description: 'Look a ticket up',
      inputSchema: z.object({ ticketId: z.string(), ms: z.number() }),
      execute: async ({ ticketId, ms }, { abortSignal }) => {
        count(ledger, 'lookup')
        await sleep(ms, abortSignal)
        return { ticketId, status: 'open' }
      },
    }),
    closeTicket: tool({
      description: 'Close a ticket',
      inputSchema: z.object({ ticketId: z.string() }),
      execute: async ({ ticketId }) => {
        count(ledger, 'closeTicket')
        return { ticketId, closed: true }
      },
    }),
    // The seed's reminder: the timer named after the provider's toolCallId.
    remind: tool({
      description: 'Remind the user later',
      inputSchema: z.object({ note: z.string(), delayMs: z.number() }),
      execute: async ({ note, delayMs }, { toolCallId }) => {
        count(ledger, 'remind')
        const ctx = handlerContext()
        await ctx.session.schedule(
          `reminder:${toolCallId}`,
          { delay: delayMs },
          ...inputs.message({
            id: `reminder:${ctx.event.id}`,
            role: 'user',
            parts: [{ type: 'text', text: `Reminder: ${note}` }],
          }),
        )
        return { scheduled: true }
      },
    }),
    runCommand: tool({
      description: 'Run a shell command',
      inputSchema: z.object({ command: z.string() }),
      execute: async ({ command }) => {
        count(ledger, 'runCommand')
        return { command, exitCode: 0 }
      },
    }),
  }
  return {
    name: 'soak-agent',
    model: SOAK_MODEL,
    instructions: ({ sessionId }: { sessionId: string }) => instructionsFor(sessionId),
    tools,
    toolRecovery: { runCommand: 'report' },
    harness: { type: 'ai-sdk', generation: { toolApproval: { closeTicket: 'user-approval' } } },
  } satisfies AgentOptions<typeof tools>
}
