// The example of docs/testing.md: a user's own `chargeCard` tool tested with
// the public crash-point kit (`a2-aws/test`), nothing else of the package's.

import { handlerContext } from 'a2-aws/ai'
import { effectLedger, expectCrashSafe, text, toolCalls } from 'a2-aws/test'
import { tool } from 'ai'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'

/** A fake payment API that, like Stripe's, charges once per idempotency key. */
const payments = effectLedger('payments')
const paymentApi = {
  async charge(amount: number, options: { idempotencyKey?: string } = {}) {
    payments.perform(`charge ${amount}`, options.idempotencyKey)
    return { id: `ch_${amount}` }
  },
}

const chargeCard = tool({
  description: 'Charge the customer',
  inputSchema: z.object({ amount: z.number() }),
  execute: async ({ amount }) => {
    const { idempotencyKey } = handlerContext()
    const charge = await paymentApi.charge(amount, { idempotencyKey })
    return { chargeId: charge.id }
  },
})

/** The same tool, forgetting the key: a retry after a crash charges again. */
const chargeCardTwice = tool({
  description: 'Charge the customer',
  inputSchema: z.object({ amount: z.number() }),
  execute: async ({ amount }) => {
    const charge = await paymentApi.charge(amount)
    return { chargeId: charge.id }
  },
})

const conversation = (chargeTool: typeof chargeCard) => ({
  agent: { name: 'shop', tools: { chargeCard: chargeTool } },
  model: [
    toolCalls({ toolCallId: 'call_1', toolName: 'chargeCard', input: { amount: 5 } }),
    text('Charged 5.'),
  ],
  conversation: [{ user: 'Charge my card 5' }],
  effects: [payments],
})

describe('chargeCard survives a crash at every point', () => {
  it('charges once whatever the point, with the idempotency key', async () => {
    const report = await expectCrashSafe(conversation(chargeCard))
    expect(report.points).toBeGreaterThan(20)
  }, 120_000)

  it('is caught charging twice without it, naming the crash point and the invariant', async () => {
    await expect(expectCrashSafe(conversation(chargeCardTwice))).rejects.toThrow(
      /crash point \d+ \(chargeCard\.execute return\): no effect duplicated: payments: "charge 5" 2 times, 1 without a crash/,
    )
  }, 120_000)
})
