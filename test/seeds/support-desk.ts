// Conversations: "Add your own events and state"

import { agentContract } from 'a2-aws/ai'
import { z } from 'zod'

const noFlags: string[] = []

export const supportDesk = agentContract({
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
