import { z } from 'zod'
import { contract } from '../../shared/index.ts'

const noFlags: string[] = []

/** The seeds' support desk, as a core contract until agentContract() lands. */
export function agentContractForTests() {
  return contract({
    name: 'support-desk',
    events: {
      'plan.changed': z.object({ plan: z.enum(['free', 'pro']) }),
      'ticket.flagged': z.object({ ticketId: z.string() }),
    },
    reducer: {
      name: 'support-desk.v1',
      initialState: { plan: 'free' as 'free' | 'pro', flagged: noFlags },
      fold: (state, event) =>
        event.type === 'plan.changed'
          ? { ...state, plan: event.payload.plan }
          : event.type === 'ticket.flagged'
            ? { ...state, flagged: [...state.flagged, event.payload.ticketId] }
            : state,
    },
  })
}
