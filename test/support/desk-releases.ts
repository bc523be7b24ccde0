import { z } from 'zod'
import { agentContract, versionedEvent } from '../../shared/ai.ts'

// Two releases of an app's contract: release 1 wrote 'plan.changed' as
// { plan }; release 2 adds `seats`, with an upcaster from release 1.

export const deskRelease1 = agentContract({
  name: 'desk',
  events: { 'plan.changed': z.object({ plan: z.enum(['free', 'pro']) }) },
})

export const deskRelease2 = agentContract({
  name: 'desk',
  events: {
    'plan.changed': versionedEvent({
      version: 2,
      schema: z.object({ plan: z.enum(['free', 'pro']), seats: z.number() }),
      upcast: { 1: (v1: { plan: 'free' | 'pro' }) => ({ ...v1, seats: 1 }) },
    }),
  },
  reducer: {
    name: 'desk.v2',
    initialState: { seats: 0 },
    fold: (state, event) =>
      event.type === 'plan.changed' ? { seats: state.seats + event.payload.seats } : state,
  },
})
