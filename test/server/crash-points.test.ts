import { tool } from 'ai'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { handlerContext, inputs } from '../../shared/ai/index.ts'
import { type CrashPointsReport, crashPoints } from '../../shared/testing/crash-points.ts'
import { effectLedger } from '../../shared/testing/crash-run.ts'
import { text, toolCalls } from '../../shared/testing/scripted-model.ts'

// Every crash point of scripted conversations on the memory store: each run
// is killed at one point, recovered by a fresh agent on the same store, and
// checked against the uncrashed run (shared/testing/crash-points.ts). The
// totals are the figures docs/runtime.md reports.

const payments = effectLedger('payments')
const reminders = effectLedger('reminders')
const shell = effectLedger('shell')

/** Charges through a durable step that passes the call's idempotency key to the "API". */
const chargeCard = tool({
  inputSchema: z.object({ amount: z.number() }),
  execute: async ({ amount }) => {
    const ctx = handlerContext()
    const charge = await ctx.step('charge', () => {
      payments.perform(`charge ${amount}`, ctx.idempotencyKey)
      return { id: `ch_${amount}` }
    })
    return { charged: amount, id: charge.id }
  },
})

/** Sets a timer named after the call, so a retry converges on it. */
const setReminder = tool({
  inputSchema: z.object({ text: z.string() }),
  execute: async ({ text: reminder }) => {
    const ctx = handlerContext()
    reminders.perform(`remind ${reminder}`, ctx.idempotencyKey)
    await ctx.session.schedule(
      `reminder:${ctx.idempotencyKey}`,
      { delay: 60_000 },
      ...inputs.message({
        id: `reminder-${ctx.idempotencyKey}`,
        role: 'user',
        parts: [{ type: 'text', text: `Reminder: ${reminder}` }],
      }),
    )
    return { scheduled: true }
  },
})

/** No idempotency to offer: `toolRecovery: 'report'`. */
const runCommand = tool({
  inputSchema: z.object({ command: z.string() }),
  execute: async ({ command }) => {
    shell.perform(`run ${command}`)
    return { exitCode: 0 }
  },
})

const agentDefinition = {
  name: 'crash-points',
  tools: { chargeCard, setReminder, runCommand },
  toolRecovery: { runCommand: 'report' as const },
  harness: {
    type: 'ai-sdk' as const,
    generation: { toolApproval: { chargeCard: 'user-approval' as const } },
  },
}
const effects = [payments, reminders, shell]

const totals = { points: 0, runs: 0, duplicated: 0, lost: 0, stuck: 0 }
function expectSafe(report: CrashPointsReport): void {
  totals.points += report.points
  totals.runs += report.runs
  totals.duplicated += report.duplicatedEffects
  totals.lost += report.lostEvents
  totals.stuck += report.stuckSessions
  expect(report.failures).toEqual([])
  expect(report.runs).toBe(report.points + 1)
}

describe('every crash point of a conversation (memory store)', () => {
  it('Given a charge that needs approval, When the process dies at any point, Then the card is charged exactly once and the transcript is the uncrashed one', async () => {
    const report = await crashPoints({
      agent: agentDefinition,
      model: [
        toolCalls({ toolCallId: 'call_0', toolName: 'chargeCard', input: { amount: 5 } }),
        text('Charged 5.', { chunks: 2 }),
      ],
      conversation: [{ user: 'Charge 5' }, { approve: true }],
      effects,
    })
    expectSafe(report)
    expect(report.labels).toContain('chargeCard.execute return')
    expect(report.labels).toContain('before store.append(step.completed)')
  }, 120_000)

  it('Given a tool that sets a timer, When the process dies at any point, Then the timer fires once and its message is answered once', async () => {
    const report = await crashPoints({
      agent: agentDefinition,
      model: [
        toolCalls({ toolCallId: 'call_0', toolName: 'setReminder', input: { text: 'pay rent' } }),
        text('I will remind you.'),
        text('Time to pay rent!'),
      ],
      conversation: [{ user: 'Remind me to pay rent' }, { wait: 60_000 }],
      effects,
    })
    expectSafe(report)
    expect(report.labels.some((label) => label.startsWith('before schedule(reminder:'))).toBe(true)
  }, 120_000)

  it('Given a turn waiting for approval, When the user steers, stops it and denies the next charge, Then a crash at any point changes nothing', async () => {
    const report = await crashPoints({
      agent: agentDefinition,
      model: [
        toolCalls({ toolCallId: 'call_0', toolName: 'chargeCard', input: { amount: 7 } }),
        text('Not charging.'),
        toolCalls({ toolCallId: 'call_0', toolName: 'chargeCard', input: { amount: 9 } }),
        text('Not charged.'),
      ],
      conversation: [
        { user: 'Charge 7' },
        { steer: 'Actually, no' },
        { stop: true },
        { user: 'Charge 9' },
        { approve: false },
      ],
      effects,
    })
    expectSafe(report)
  }, 120_000)

  it("Given a 'report' tool with no idempotency, When the process dies at any point, Then its command ran at most once and an interruption is recorded when it may have partly run", async () => {
    const report = await crashPoints({
      agent: agentDefinition,
      model: [
        toolCalls({ toolCallId: 'call_0', toolName: 'runCommand', input: { command: 'deploy' } }),
        text('Deployed.'),
      ],
      conversation: [{ user: 'Deploy' }],
      effects,
    })
    expectSafe(report)
  }, 120_000)

  it('totals the runs (the figures in docs/runtime.md)', () => {
    console.info(
      `${totals.points} crash points, ${totals.runs} runs, ${totals.duplicated} duplicated effects, ${totals.lost} lost events, ${totals.stuck} stuck sessions`,
    )
    expect(totals.runs).toBeGreaterThan(totals.points)
  })
})
