import { tool } from 'ai'
import { z } from 'zod'
import { handlerContext, inputs } from '../../shared/ai.ts'
import type { CrashPointsOptions } from '../../shared/testing/crash-points.ts'
import { effectLedger } from '../../shared/testing/crash-run.ts'
import { text, toolCalls } from '../../shared/testing/scripted-model.ts'

// The scripted conversations the crash-point suites run (memory store in
// test/shared/testing/crash-points.test.ts, DynamoDB on moto in
// test/shared/testing/crash-points-dynamodb.integration.test.ts): tools that do their
// effect once (a durable step with the idempotency key, a timer named after
// the call) and one that cannot (`toolRecovery: 'report'`).

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

export const agentDefinition = {
  name: 'crash-points',
  tools: { chargeCard, setReminder, runCommand },
  toolRecovery: { runCommand: 'report' as const },
  harness: {
    type: 'ai-sdk' as const,
    generation: { toolApproval: { chargeCard: 'user-approval' as const } },
  },
}
export const effects = [payments, reminders, shell]

type Conversation = Pick<CrashPointsOptions, 'model' | 'conversation'>

/** A charge that needs approval. */
export const approvedCharge: Conversation = {
  model: [
    toolCalls({ toolCallId: 'call_0', toolName: 'chargeCard', input: { amount: 5 } }),
    text('Charged 5.', { chunks: 2 }),
  ],
  conversation: [{ user: 'Charge 5' }, { approve: true }],
}

/** A tool that sets a timer, and the timer's message answered. */
export const reminder: Conversation = {
  model: [
    toolCalls({ toolCallId: 'call_0', toolName: 'setReminder', input: { text: 'pay rent' } }),
    text('I will remind you.'),
    text('Time to pay rent!'),
  ],
  conversation: [{ user: 'Remind me to pay rent' }, { wait: 60_000 }],
}

/**
 * A steer while an approval waits (the handoff closes it), a denied charge,
 * and Stop while a third charge waits for approval.
 */
export const steerStopDeny: Conversation = {
  model: [
    toolCalls({ toolCallId: 'call_0', toolName: 'chargeCard', input: { amount: 7 } }),
    text('Not charging.'),
    toolCalls({ toolCallId: 'call_0', toolName: 'chargeCard', input: { amount: 9 } }),
    text('Not charged.'),
    toolCalls({ toolCallId: 'call_0', toolName: 'chargeCard', input: { amount: 3 } }),
  ],
  conversation: [
    { user: 'Charge 7' },
    { steer: 'Actually, no' },
    { user: 'Charge 9' },
    { approve: false },
    { user: 'Charge 3' },
    { stop: true },
  ],
}

/**
 * A steer while an approval waits: the handoff closes the unanswered
 * approval (the charge never runs), and the steering is the next turn.
 */
export const steeredCharge: Conversation = {
  model: [
    toolCalls({ toolCallId: 'call_0', toolName: 'chargeCard', input: { amount: 5 } }),
    text('Not charged; hi!'),
  ],
  conversation: [{ user: 'Charge 5' }, { steer: 'Never mind, just say hi' }],
}

/** A tool with no idempotency to offer. */
export const reportedCommand: Conversation = {
  model: [
    toolCalls({ toolCallId: 'call_0', toolName: 'runCommand', input: { command: 'deploy' } }),
    text('Deployed.'),
  ],
  conversation: [{ user: 'Deploy' }],
}

/** The same agent compacting early: each later turn summarizes the ones before. */
export const compactingAgent = {
  ...agentDefinition,
  harness: {
    ...agentDefinition.harness,
    compaction: { thresholdTokens: 40, compact: () => 'Earlier: greetings.' },
  },
}

/** Three turns, the second and third compacting the transcript first. */
export const compactedTurns: Conversation = {
  model: [
    text('Hello there, how can I help you today?'),
    text('Sure, here is more.'),
    text('Third answer.'),
  ],
  conversation: [
    { user: 'Hello' },
    { user: 'Tell me more about everything you know' },
    { user: 'And a third thing' },
  ],
}
