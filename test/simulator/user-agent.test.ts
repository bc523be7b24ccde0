import { tool } from 'ai'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { handlerContext } from '../../shared/ai.ts'
import {
  describeFailure,
  effectLedger,
  type SimulatedAgent,
  type SimulationReport,
  simulate,
  text,
  toolCalls,
} from '../../shared/testing/index.ts'

/**
 * A user's agent, as docs/testing.md shows it: a shop whose tool charges a
 * card through a payment API that deduplicates by idempotency key, and
 * whose handler emails a receipt for each order the tool records.
 */
function shop(keyed: boolean): SimulatedAgent {
  const payments = effectLedger('payments')
  const mail = effectLedger('mail')
  const chargeCard = tool({
    description: 'Charge the customer',
    inputSchema: z.object({ amount: z.number() }),
    execute: async ({ amount }) => {
      const ctx = handlerContext()
      payments.perform(`charge ${amount}`, keyed ? ctx.idempotencyKey : undefined)
      await ctx.session.append({
        id: `order:${ctx.idempotencyKey}`,
        type: 'shop.order.placed',
        payload: { amount },
      })
      return { charged: amount }
    },
  })
  return {
    options: {
      name: 'shop',
      instructions: 'You run a shop.',
      tools: { chargeCard },
      handlers: {
        'shop.order.placed': ({ event, idempotencyKey }) => {
          const { amount } = event.payload as { amount: number }
          mail.perform(`receipt for ${amount}`, idempotencyKey)
        },
      },
    },
    model: [
      toolCalls({ toolCallId: 'call_0', toolName: 'chargeCard', input: { amount: 5 } }),
      text('Charged 5.'),
    ],
    messages: ['Charge my card 5', 'Charge me again'],
    effects: [payments, mail],
  }
}

const SEEDS = 25

describe("the simulator on the user's own agent", () => {
  it('runs their tools, handlers and instructions, and holds every invariant when the effect is keyed', async () => {
    const agent = shop(true)
    const failures: string[] = []
    const [payments, mail] = agent.effects ?? []
    let charges = 0
    let receipts = 0
    for (let seed = 1; seed <= SEEDS; seed++) {
      const report = await simulate({ seed, agent })
      failures.push(...report.failures.flatMap((f) => f.broken.map((b) => `seed ${seed}: ${b}`)))
      // Each run starts with the ledgers reset.
      charges += payments?.performed.length ?? 0
      receipts += mail?.performed.length ?? 0
    }
    expect(failures).toEqual([])
    expect(charges).toBeGreaterThan(SEEDS)
    expect(receipts).toBeGreaterThan(SEEDS)
  }, 60_000)

  it('reports, with its seed, a charge run again without an idempotencyKey', async () => {
    let found: SimulationReport | undefined
    for (let seed = 1; seed <= 2 * SEEDS && !found; seed++) {
      const report = await simulate({ seed, agent: shop(false) })
      if (report.failures.length > 0) found = report
    }
    const printed = found ? describeFailure(found) : ''
    expect(printed).toMatch(
      /^seed \d+ broke \d+ session\(s\); replay: simulate\(\{ seed: \d+, agent \}\)/,
    )
    expect(printed).toMatch(
      /- payments: "charge 5" performed 2 times by chargeCard call \S+ over 2 runs \(1 in one run\)/,
    )
    // The receipt's handler keyed its email: the mail service never saw one twice.
    expect(printed).not.toMatch(/- mail: /)
  }, 60_000)
})
