import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import type { AppHandlerArgs } from '../../../../shared/agent/wiring/agent-options.ts'
import { contract } from '../../../../shared/log/contract.ts'
import { laneSpec } from '../../../../shared/testing/index.ts'

// The handlers lane as given/when/then cases: the app's handlers run for
// its events in the log, and what they append is what the run appends.

const support = contract({
  name: 'support',
  events: {
    'ticket.opened': z.object({ ticketId: z.string() }),
    'ticket.acknowledged': z.object({ ticketId: z.string(), attempt: z.number() }),
    'ticket.noted': z.object({ note: z.string() }),
  },
})

const handlers = { lane: 'handlers' } as const

/** A spec whose agent acknowledges every opened ticket, recording what it saw. */
function acknowledging(acknowledge?: (args: AppHandlerArgs) => Promise<void>) {
  const seen: string[] = []
  const spec = laneSpec({
    agent: {
      contract: support,
      handlers: {
        'ticket.opened': async (args) => {
          const { ticketId } = args.event.payload as { ticketId: string }
          seen.push(ticketId)
          if (acknowledge) return acknowledge(args)
          await args.session.append({
            type: 'ticket.acknowledged',
            payload: { ticketId, attempt: args.attempt },
          })
        },
      },
    },
  })
  return { spec, seen }
}

describe('the handlers lane', () => {
  it('runs the handler of an event and appends what it appends (on its first attempt)', async () => {
    const { spec, seen } = acknowledging()
    await spec
      .given([{ type: 'ticket.opened', payload: { ticketId: 'T-1' } }])
      .when(handlers)
      .thenAppends([{ type: 'ticket.acknowledged', payload: { ticketId: 'T-1', attempt: 1 } }])
    expect(seen).toEqual(['T-1'])
  })

  it('runs the handlers in log order, each event once', async () => {
    const { spec, seen } = acknowledging()
    await spec
      .given([
        { type: 'ticket.opened', payload: { ticketId: 'T-1' } },
        { type: 'ticket.noted', payload: { note: 'nobody handles this' } },
        { type: 'ticket.opened', payload: { ticketId: 'T-2' } },
      ])
      .when(handlers)
      .thenAppends([
        { type: 'ticket.acknowledged', payload: { ticketId: 'T-1' } },
        { type: 'ticket.acknowledged', payload: { ticketId: 'T-2' } },
      ])
    expect(seen).toEqual(['T-1', 'T-2'])
  })

  it('appends nothing for events no handler handles', async () => {
    const { spec, seen } = acknowledging()
    await spec
      .given([{ type: 'ticket.noted', payload: { note: 'just a note' } }])
      .when(handlers)
      .thenNothing()
    expect(seen).toEqual([])
  })

  it("fails the run with the handler's error, for the wake-up to be retried", async () => {
    const { spec } = acknowledging(async () => {
      throw new Error('the CRM is down')
    })
    await spec
      .given([{ type: 'ticket.opened', payload: { ticketId: 'T-1' } }])
      .when(handlers)
      .thenThrows(/the CRM is down/)
  })
})
